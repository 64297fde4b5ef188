/** What the client and the admin client share: connecting with a key, unwrapping answers, following cursors. */
import createClient, { type Client } from 'openapi-fetch';
import { errorFromResponse, GenmediaConnectionError, GenmediaError } from './errors';
import type { paths } from './generated/openapi';
import { DEFAULT_RETRY_POLICY, retryingFetch, type RetryPolicy } from './retry';

export interface ConnectionOptions {
  apiKey?: string;
  /** Default: `GENMEDIA_BASE_URL`, else http://localhost:3000. */
  baseUrl?: string;
  /** Retries of connection failures, 429 and 503 where they are safe (see `retry.ts`). */
  retry?: Partial<RetryPolicy>;
  /** A fetch of your own (proxies, tests); default: the global fetch. */
  fetch?: typeof fetch;
}

export interface Connection {
  api: Client<paths>;
  baseUrl: string;
  fetch: typeof fetch;
}

const DEFAULT_BASE_URL = 'http://localhost:3000';

/** The typed client with the key in both headers the API reads, and retries where they are safe. */
export function connect(options: ConnectionOptions, keyVariable: string): Connection {
  const env = readEnvironment();
  const apiKey = options.apiKey ?? env[keyVariable];
  if (!apiKey) throw new GenmediaError(`no API key: pass apiKey or set ${keyVariable}`, { code: 'NO_API_KEY' });
  const baseUrl = (options.baseUrl ?? env.GENMEDIA_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const retrying = retryingFetch(options.fetch ?? globalThis.fetch.bind(globalThis), { ...DEFAULT_RETRY_POLICY, ...options.retry });
  // The catalog endpoints read `x-api-key`, the others `Authorization: Bearer`: the key goes in both.
  const api = createClient<paths>({ baseUrl, fetch: retrying, headers: { authorization: `Bearer ${apiKey}`, 'x-api-key': apiKey } });
  return { api, baseUrl, fetch: retrying };
}

/** Every item of a cursor-paged listing, fetching the next page only when the loop asks for more. */
export async function* followCursor<Page extends { hasMore: boolean; nextCursor: string | null }, Item>(
  fetchPage: (cursor: string | undefined) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
): AsyncGenerator<Item> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* itemsOf(page);
    cursor = page.hasMore && page.nextCursor ? page.nextCursor : undefined;
  } while (cursor);
}

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a successful answer; a GenmediaError for an error answer or no answer. */
export async function unwrap<T>(call: Promise<FetchResult<T>>): Promise<T> {
  const result = await settle(call);
  if (result.error !== undefined || !result.response.ok) throw errorFromResponse(result.response, result.error);
  return result.data as T;
}

/** The response itself when it succeeded (for streamed bodies). */
export async function unwrapResponse(call: Promise<FetchResult<unknown>>): Promise<Response> {
  const result = await settle(call);
  if (!result.response.ok) {
    const body = await result.response.text().catch(() => '');
    throw errorFromResponse(result.response, parseJson(body));
  }
  return result.response;
}

async function settle<T>(call: Promise<FetchResult<T>>): Promise<FetchResult<T>> {
  try {
    return await call;
  } catch (err) {
    if (isAbort(err)) throw err;
    throw new GenmediaConnectionError(err);
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

export function readEnvironment(): Record<string, string | undefined> {
  const processLike = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return processLike?.env ?? {};
}
