import { Genmedia } from '@genmedia/client';
import { CliError } from '../context';
import { readLogin } from './config';

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export interface ConnectionOptions {
  apiKey?: string;
  baseUrl?: string;
}

/** The API's address: --base-url, else GENMEDIA_BASE_URL, else the one saved by login, else the local default. */
export function resolveBaseUrl(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  return options.baseUrl ?? env.GENMEDIA_BASE_URL ?? readLogin(env)?.baseUrl ?? DEFAULT_BASE_URL;
}

/** A client with the key from --api-key, else GENMEDIA_API_KEY, else `genmedia login`. */
export function openClient(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Genmedia {
  const apiKey = options.apiKey ?? env.GENMEDIA_API_KEY ?? readLogin(env)?.apiKey;
  if (!apiKey) throw new CliError('NO_API_KEY', 'no API key: run `genmedia login`, or set GENMEDIA_API_KEY');
  return new Genmedia({ apiKey, baseUrl: resolveBaseUrl(options, env) });
}
