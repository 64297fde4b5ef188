/**
 * `fetch` for URLs we did not choose (a client's input files, an upstream's output URLs, a Cog server an operator
 * named): every hop (the URL and each redirect) is checked by the address guard and the connection goes to the
 * address that was checked, so neither a redirect nor a DNS answer that changes after the check (rebinding) can reach
 * an internal service. The request's headers (they may carry an upstream's key) go only to the first URL's origin,
 * never across a redirect elsewhere. With `redirects: 'refuse'` a redirect is not followed at all.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import type { AllowedNetworks } from './allowedNetworks';
import { checkOutboundUrl, pinnedLookup, type Resolver } from './addressGuard';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
export const MAX_REDIRECTS = 5;

export interface GuardedFetchOptions {
  /** Allow private and loopback addresses (development and tests); cloud metadata addresses never are. */
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** Sent to the first URL's origin only: a hop to another origin gets none of them. */
  headers?: Record<string, string>;
  /**
   * Origins an operator configured (a provider's own API, e.g. `https://gpu.internal:8443`): their addresses may be
   * private too. Metadata addresses stay refused.
   */
  trustedOrigins?: readonly string[];
  /** Only these networks and host names, public ones included (servers an operator names); `allowPrivate` is then ignored. */
  allowedNetworks?: AllowedNetworks;
  /** What the URL is, in the reasons: `input file` (default), `output`, `Cog server`. */
  what?: string;
  /** `follow` (default): up to MAX_REDIRECTS, each checked; `refuse`: a redirect answer is a BlockedUrlError. */
  redirects?: 'follow' | 'refuse';
  method?: string;
  body?: string;
  resolve?: Resolver;
}

/** The URL was refused before any connection: its reason is for our logs, not for the client. */
export class BlockedUrlError extends Error {
  constructor(readonly reason: string) {
    super(`refused: ${reason}`);
    this.name = 'BlockedUrlError';
  }
}

/** GET (or `method`) `rawUrl` following at most MAX_REDIRECTS redirects, each one checked before it is followed. */
export async function guardedFetch(rawUrl: string, options: GuardedFetchOptions): Promise<Response> {
  const what = options.what ?? 'input file';
  const firstOrigin = originOf(rawUrl);
  let url = rawUrl;
  for (let hop = 0; ; hop++) {
    const origin = originOf(url);
    const check = await checkOutboundUrl(url, {
      allowPrivate: options.allowPrivate || (origin !== undefined && (options.trustedOrigins ?? []).includes(origin)),
      allowedNetworks: options.allowedNetworks,
      resolve: options.resolve,
      schemes: ['https:', 'http:'],
      what,
    });
    if (!check.ok) throw new BlockedUrlError(check.reason);
    const agent = new Agent({ connect: { lookup: pinnedLookup(check.address) as never } });
    const headers = origin === firstOrigin ? options.headers : undefined;
    let response;
    try {
      response = await undiciFetch(url, { method: options.method, body: options.body, redirect: 'manual', signal: options.signal, headers, dispatcher: agent });
    } finally {
      // Lets the body finish streaming, then frees the connection.
      void agent.close();
    }
    const location = response.headers.get('location');
    const redirect = REDIRECT_STATUSES.has(response.status);
    if (redirect && options.redirects === 'refuse') {
      await response.body?.cancel().catch(() => undefined);
      throw new BlockedUrlError(`${what} answered with a redirect (${response.status}), which is not followed`);
    }
    if (!redirect || !location) return response as unknown as Response;
    await response.body?.cancel().catch(() => undefined);
    if (hop >= MAX_REDIRECTS) throw new BlockedUrlError(`more than ${MAX_REDIRECTS} redirects`);
    url = new URL(location, url).href;
  }
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
