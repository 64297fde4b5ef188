/**
 * The fetch the fal client is given: every fal host sent to the origin override with its path kept, a
 * per-request timeout, the caller's AbortSignal, and every failure thrown as a `FalAnswer` (fal answered
 * with an error) or a `FalUnreachable` (no answer).
 *
 * The client retries 429, some 5xx and connection errors by itself, the creating request included, and has
 * no option to turn that off (its per-call retry settings override the client's). It stops retrying on an
 * error it does not recognise as retryable, which is what these two are: retries are left to the job's
 * activities, which know whether a paid request may already have reached fal.
 */

/** Hosts of fal's APIs and storage: queue.fal.run, fal.run, rest.fal.ai, rest.alpha.fal.ai, api.fal.ai, v3.fal.media, ... */
const FAL_DOMAINS = ['fal.run', 'fal.ai', 'fal.media'];

/** Connection failures raised before a byte of the request was sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** fal answered with an error status. */
export class FalAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Headers,
  ) {
    super(`fal answered ${status}`);
    this.name = 'FalAnswer';
  }
}

/** No answer came: the connection failed, broke, or the request timed out. */
export class FalUnreachable extends Error {
  /** The original error, kept out of `cause` so that the client does not see a retryable network error in it. */
  readonly reason: unknown;

  constructor(reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
    this.name = 'FalUnreachable';
    this.reason = reason;
  }

  get timedOut(): boolean {
    return this.reason instanceof Error && this.reason.name === 'TimeoutError';
  }

  /** Whether the request may have reached fal before the failure. */
  get maybeSent(): boolean {
    let current: unknown = this.reason;
    for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
      const code = (current as { code?: unknown }).code;
      if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return false;
      current = (current as { cause?: unknown }).cause;
    }
    return true;
  }
}

function isFalHost(hostname: string): boolean {
  return FAL_DOMAINS.some((domain) => hostname === domain || hostname.endsWith(`.${domain}`));
}

/** `url` on the origin override when it is one of fal's hosts; otherwise unchanged. */
export function redirectToOrigin(url: string, origin: string | undefined): string {
  if (!origin) return url;
  const parsed = new URL(url);
  return isFalHost(parsed.hostname) ? `${origin}${parsed.pathname}${parsed.search}` : url;
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export interface FalTransport {
  /** `FAL_BASE_URL`, without a trailing slash. */
  origin?: string;
  timeoutMs: number;
}

/** A fetch for one call of the adapter, bound to that call's signal. */
export function falFetch(transport: FalTransport, signal: AbortSignal): typeof fetch {
  return async (input, init) => {
    const url = redirectToOrigin(input instanceof Request ? input.url : String(input), transport.origin);
    const signals = [signal, AbortSignal.timeout(transport.timeoutMs), ...(init?.signal ? [init.signal] : [])];
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.any(signals) });
      if (response.ok) return response;
      throw new FalAnswer(response.status, await bodyOf(response), response.headers);
    } catch (error) {
      throw error instanceof FalAnswer ? error : new FalUnreachable(error);
    }
  };
}
