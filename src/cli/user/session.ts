import { Genmedia } from '@genmedia/client';
import { readDevCredentials } from '../../accounts/devAccount';
import { loadConfig } from '../../config';
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

/**
 * A client with the key from --api-key, else GENMEDIA_API_KEY, else `genmedia login`, else — for an API on this
 * machine only — the dev key `npm run dev` keeps in its data folder.
 */
export function openClient(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): Genmedia {
  const baseUrl = resolveBaseUrl(options, env);
  const apiKey = options.apiKey ?? env.GENMEDIA_API_KEY ?? readLogin(env)?.apiKey ?? localDevKey(baseUrl, env);
  if (!apiKey) {
    throw new CliError('NO_API_KEY', 'no API key: run `genmedia login`, or set GENMEDIA_API_KEY');
  }
  return new Genmedia({ apiKey, baseUrl });
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function localDevKey(baseUrl: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!LOOPBACK_HOSTS.has(new URL(baseUrl).hostname)) return undefined;
  try {
    return readDevCredentials(loadConfig(env).dataDir)?.apiKey;
  } catch {
    return undefined;
  }
}
