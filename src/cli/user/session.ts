import { Genmedia } from '@genmedia/client';
import { devDataDir, readDevCredentials } from '../../accounts/devAccount';
import { CliError } from '../context';
import { readLogin } from './config';

export const DEFAULT_BASE_URL = 'http://localhost:3000';

export interface ConnectionOptions {
  apiKey?: string;
  baseUrl?: string;
  /** Send the key over plain http:// to another machine anyway. */
  allowInsecureHttp?: boolean;
}

/**
 * The API's address: --base-url, else GENMEDIA_BASE_URL, else the one saved by login, else the local default.
 * The key goes in every request's headers, so plain http:// is refused unless the API is on this machine or the
 * user insists with --allow-insecure-http.
 */
export function resolveBaseUrl(options: ConnectionOptions, env: NodeJS.ProcessEnv = process.env): string {
  const baseUrl = options.baseUrl ?? env.GENMEDIA_BASE_URL ?? readLogin(env)?.baseUrl ?? DEFAULT_BASE_URL;
  const url = parseBaseUrl(baseUrl);
  if (url.protocol === 'http:' && !isLoopback(url.hostname) && !options.allowInsecureHttp) {
    throw new CliError(
      'INSECURE_BASE_URL',
      `refusing to send the API key in clear text to ${url.host}: ${baseUrl} is plain http:// on another machine. ` +
        'Use https://, or pass --allow-insecure-http to send it anyway',
    );
  }
  return baseUrl;
}

function parseBaseUrl(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CliError('INVALID_ARGUMENTS', `the API address ${JSON.stringify(baseUrl)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError('INVALID_ARGUMENTS', `the API address ${baseUrl} must start with https:// (or http:// on this machine)`);
  }
  return url;
}

/** localhost, 127.0.0.0/8 and ::1: the key never leaves this machine. */
export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
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

function localDevKey(baseUrl: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!isLoopback(new URL(baseUrl).hostname)) return undefined;
  try {
    return readDevCredentials(devDataDir(env))?.apiKey;
  } catch {
    return undefined;
  }
}
