import https from 'node:https';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { WebhookAttemptOutcome } from '../shared/webhooks';
import { checkWebhookUrl, pinnedLookup, type Resolver } from '../net/addressGuard';
import { signWebhook } from './signing';
import { parseRetryAfter } from '../lib/retryAfter';

/**
 * One webhook delivery attempt: resolve and check the receiver's address, POST the signed body to
 * exactly that address over verified TLS, and classify the answer. Never throws; every failure is
 * a result the caller records.
 */

export const WEBHOOK_USER_AGENT = 'genmedia-webhooks/1.0 (+https://www.standardwebhooks.com)';

export interface DeliveryRequest {
  url: string;
  /** The event's `webhook-id`, the same for every attempt. */
  webhookId: string;
  /** The serialized payload, sent and signed byte for byte. */
  body: string;
  /** Signing secrets, current first (see `activeSigningSecrets`). */
  secrets: readonly string[];
}

export interface DeliveryOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
  userAgent?: string;
  /**
   * Trusted CA certificates (PEM). Replaces Node's default store for this request, so it is for
   * tests only; elsewhere add CAs with NODE_EXTRA_CA_CERTS.
   */
  ca?: string | Buffer | Array<string | Buffer>;
  resolve?: Resolver;
  now?: () => Date;
}

export interface DeliveryResult {
  outcome: WebhookAttemptOutcome;
  /** When the attempt started; also the `webhook-timestamp` it was signed with. */
  attemptedAt: Date;
  statusCode?: number;
  /** Network, TLS, timeout or address error; also set for a redirect that was not followed. */
  error?: string;
  durationMs: number;
  /** Seconds the receiver asked to wait (Retry-After on 429/503). */
  retryAfterSeconds?: number;
  /** The first `maxResponseBytes` bytes of the response body. */
  responseBody?: string;
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'AttemptTimeout';
  }
}

export async function postWebhookAttempt(request: DeliveryRequest, options: DeliveryOptions): Promise<DeliveryResult> {
  const attemptedAt = (options.now ?? (() => new Date()))();
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (outcome: WebhookAttemptOutcome, error: string): DeliveryResult => ({
    outcome,
    attemptedAt,
    error,
    durationMs: elapsed(),
  });

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new AttemptTimeout(options.timeoutMs)), options.timeoutMs);
  try {
    const check = await untilAborted(
      checkWebhookUrl(request.url, { allowPrivate: options.allowPrivate, resolve: options.resolve }),
      controller.signal,
    );
    if (!check.ok) return failure(check.kind === 'invalid_url' ? 'gone' : 'retry', check.reason);

    const headers = {
      ...signWebhook({ webhookId: request.webhookId, timestamp: attemptedAt, body: request.body, secrets: request.secrets }),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(request.body)),
      'user-agent': options.userAgent ?? WEBHOOK_USER_AGENT,
    };
    const { url, hostname } = check;
    const response = await post(
      {
        protocol: 'https:',
        hostname,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        // The connection goes to the address that was checked, whatever DNS answers now.
        lookup: pinnedLookup(check.address) as unknown as https.RequestOptions['lookup'],
        servername: isIP(hostname) === 0 ? hostname : undefined,
        ca: options.ca,
        rejectUnauthorized: true,
        agent: false,
        signal: controller.signal,
      },
      request.body,
      options.maxResponseBytes,
    );
    return classify(response, attemptedAt, elapsed());
  } catch (err) {
    const reason = controller.signal.aborted ? controller.signal.reason : err;
    return failure('retry', describeError(reason));
  } finally {
    clearTimeout(timer);
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

interface RawResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Sends the request and reads at most `maxResponseBytes` of the answer, then closes the connection. */
function post(options: https.RequestOptions, body: string, maxResponseBytes: number): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      let received = 0;
      let settled = false;
      const finish = () => {
        if (settled) return;
        settled = true;
        const head = Buffer.concat(chunks).subarray(0, maxResponseBytes);
        resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: head });
        res.destroy();
      };
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        reject(err);
      };
      if (maxResponseBytes === 0) return finish();
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        if (received >= maxResponseBytes) finish();
      });
      res.on('end', finish);
      res.on('error', fail);
      res.on('close', () => (res.complete ? finish() : fail(new Error('connection closed before the response ended'))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function classify(res: RawResponse, attemptedAt: Date, durationMs: number): DeliveryResult {
  const { statusCode } = res;
  const responseBody = res.body.length > 0 ? res.body.toString('utf8') : undefined;
  const base = { attemptedAt, statusCode, durationMs, responseBody };
  if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', ...base };
  if (statusCode === 410) return { outcome: 'gone', ...base };
  if (statusCode >= 300 && statusCode < 400) {
    const location = headerValue(res.headers.location);
    const to = location ? ` to ${location.slice(0, 200)}` : '';
    return { outcome: 'retry', ...base, error: `redirect${to} not followed` };
  }
  if (statusCode === 429 || statusCode === 503) {
    const retryAfterSeconds = parseRetryAfter(headerValue(res.headers['retry-after']), attemptedAt);
    return retryAfterSeconds === undefined ? { outcome: 'retry', ...base } : { outcome: 'retry', ...base, retryAfterSeconds };
  }
  return { outcome: 'retry', ...base };
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describeError(err: unknown): string {
  if (err instanceof AttemptTimeout) return err.message;
  const e = err as NodeJS.ErrnoException;
  const code = e?.code;
  const message = e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
