/**
 * How the adapter talks to Replicate: one `Replicate` client per call, built on a fetch that carries the call's
 * signal and the per-request timeout, keeps the error answer it saw, and stops the client's own retries where
 * they could cost money.
 *
 * The client (replicate 1.4) retries inside `request()`: a POST that answered 429 and a GET that answered 429 or
 * 5xx, and every request whose fetch threw (a refused or broken connection, a timeout), up to five more times,
 * with no option to turn it off. A POST that broke after it was sent may have created a prediction, so sending it
 * again could pay twice. This fetch therefore sends a POST at most once per call and answers the client's retries
 * with the first outcome, and never retries a failed connection. GETs answered 429 or 5xx may be retried by the client.
 */
import Replicate from 'replicate';
import { abortError } from '../../abort';
import { ProviderError } from '../../types';
import { errorForStatus, errorForTransport } from '../../errors';

/** Replicate's API origin; the client adds the `/v1` prefix to it (its default base URL is `https://api.replicate.com/v1`). */
export const REPLICATE_API_ORIGIN = 'https://api.replicate.com';

export interface ReplicateTransport {
  auth: string;
  /** `REPLICATE_BASE_URL` without a trailing slash, or undefined for Replicate itself. */
  origin?: string;
  timeoutMs: number;
}

/** An error answer, kept whole: the client only puts its text into an error message. */
interface Answer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/**
 * The client's `baseUrl` for an origin override. The variable names an origin like the other upstreams' do
 * (`https://gateway.example.com`) and `/v1` is appended; a value that already ends in `/v1` is taken as it is.
 */
export function replicateBaseUrl(origin: string | undefined): string | undefined {
  if (!origin) return undefined;
  const trimmed = origin.replace(/\/+$/, '');
  return /\/v1$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}

/** Whether `url` is a resource of the API itself (under its base URL, e.g. a file's `urls.get`), which needs the token. */
export function isApiResource(url: string, origin: string | undefined): boolean {
  const base = new URL(`${replicateBaseUrl(origin) ?? `${REPLICATE_API_ORIGIN}/v1`}/`);
  const target = new URL(url);
  return target.origin === base.origin && target.pathname.startsWith(base.pathname);
}

function toResponse(answer: Answer): Response {
  return new Response(answer.text, { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}

/** One call's fetch, and what it saw. */
class CallFetch {
  answer?: Answer;
  failure?: unknown;
  sent = false;

  constructor(
    private readonly timeoutMs: number,
    private readonly signal: AbortSignal,
    private readonly extraHeaders: Record<string, string>,
  ) {}

  readonly fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    if (this.failure !== undefined) throw this.failure;
    const post = (init?.method ?? 'GET').toUpperCase() !== 'GET';
    if (post && this.answer) return toResponse(this.answer);
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(this.extraHeaders)) headers.set(name, value);
    const signals = [this.signal, AbortSignal.timeout(this.timeoutMs), ...(init?.signal ? [init.signal] : [])];
    let response: Response;
    try {
      this.sent = true;
      response = await fetch(input, { ...init, headers, signal: AbortSignal.any(signals) });
    } catch (error) {
      this.failure = error;
      throw error;
    }
    if (response.ok) return response;
    let text = '';
    try {
      text = await response.text();
    } catch (error) {
      this.failure = error;
      throw error;
    }
    this.answer = { status: response.status, statusText: response.statusText, headers: response.headers, text };
    return toResponse(this.answer);
  };
}

/** The human part of a problem-details body (`detail`, else `title`), or the text itself. */
export function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (typeof body.detail === 'string' && body.detail.trim()) return body.detail.trim();
    if (typeof body.title === 'string') return body.title;
  } catch {
    // not JSON
  }
  return text.trim().slice(0, 300);
}

/** `Retry-After`, else the wait the documented 429 body names ("Your rate limit resets in ~30s."). */
function retryAfterOf(answer: Answer, detail: string): string | null {
  const header = answer.headers.get('retry-after');
  if (header) return header;
  const named = /resets in ~?(\d+(?:\.\d+)?)\s*s/i.exec(detail);
  return named ? named[1] : null;
}

export interface CallOptions {
  /** The request that starts a paid prediction. */
  creating?: boolean;
  /** Headers the client has no option for (`Cancel-After`). */
  headers?: Record<string, string>;
}

/** Runs one client call and turns whatever went wrong into a ProviderError (or the abort reason). */
export async function callReplicate<T>(
  transport: ReplicateTransport,
  what: string,
  signal: AbortSignal,
  fn: (client: Replicate) => Promise<T>,
  options: CallOptions = {},
): Promise<T> {
  const calls = new CallFetch(transport.timeoutMs, signal, options.headers ?? {});
  const baseUrl = replicateBaseUrl(transport.origin);
  const client = new Replicate({ auth: transport.auth, fetch: calls.fetch, ...(baseUrl ? { baseUrl } : {}) });
  try {
    return await fn(client);
  } catch (error) {
    if (signal.aborted) throw abortError(signal);
    throw failureOf(`Replicate ${what}`, calls, error, options.creating === true);
  }
}

/** The HTTP status Replicate answered with, for errors thrown by `callReplicate`. */
const answered = new WeakMap<ProviderError, number>();

export function answeredStatus(error: unknown): number | undefined {
  return error instanceof ProviderError ? answered.get(error) : undefined;
}

function failureOf(what: string, calls: CallFetch, error: unknown, creating: boolean): ProviderError {
  if (error instanceof ProviderError) return error;
  if (calls.failure !== undefined) return errorForTransport(what, calls.failure);
  if (calls.answer) {
    const detail = detailOf(calls.answer.text);
    const failure =
      calls.answer.status === 402
        ? // Out of credit: the account's problem, like a refused token, not the input's.
          new ProviderError('PROVIDER_AUTH_FAILED', `${what} answered 402: ${detail.slice(0, 300)}`, { retryable: false })
        : errorForStatus(what, calls.answer.status, detail, retryAfterOf(calls.answer, detail));
    answered.set(failure, calls.answer.status);
    return failure;
  }
  const text = error instanceof Error ? error.message : String(error);
  if (calls.sent) {
    // Sent and answered 2xx, but the answer could not be read: for a create, a prediction may exist.
    return new ProviderError('PROVIDER_TIMEOUT', `${what}: the answer could not be read (${text.slice(0, 200)})`, { retryable: true, cause: error });
  }
  const code = creating ? 'PROVIDER_REJECTED_INPUT' : 'PROVIDER_UNAVAILABLE';
  return new ProviderError(code, `${what}: the request could not be made (${text.slice(0, 200)})`, { retryable: !creating, cause: error });
}
