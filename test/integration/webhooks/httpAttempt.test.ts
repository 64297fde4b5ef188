import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../../../src/net/addressGuard';
import { postWebhookAttempt, WEBHOOK_USER_AGENT, type DeliveryOptions } from '../../../src/webhooks/httpAttempt';
import { generateWebhookSecret } from '../../../src/accounts/webhookSecret';
import { webhookEventId } from '../../../src/webhooks/signing';
import { okHandler, startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';

let receiver: HttpsReceiver;
let options: DeliveryOptions;
const secret = generateWebhookSecret();
const body = JSON.stringify({ type: 'job.completed', version: 'v1', timestamp: new Date().toISOString(), data: { jobId: 'job_1' } });

beforeAll(async () => {
  receiver = await startHttpsReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.setHandler(okHandler);
  options = { allowPrivate: true, timeoutMs: 3000, maxResponseBytes: 1024, ca: receiver.caPem };
});

const send = (path = '/hook', overrides: Partial<DeliveryOptions> = {}, secrets = [secret]) =>
  postWebhookAttempt({ url: `${receiver.baseUrl}${path}`, webhookId: webhookEventId('job_1', 'job.completed'), body, secrets }, {
    ...options,
    ...overrides,
  });

describe('postWebhookAttempt against a real HTTPS receiver', () => {
  it('delivers a signed JSON POST that verifies with the account secret', async () => {
    const result = await send('/hook?tenant=7');
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 200, responseBody: 'ok' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.requests;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/hook?tenant=7');
    expect(request.body).toBe(body);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toBe(WEBHOOK_USER_AGENT);
    expect(request.headers['webhook-id']).toBe(webhookEventId('job_1', 'job.completed'));
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(result.attemptedAt.getTime() / 1000)));
    const verified = new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
    expect(verified).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateWebhookSecret()).verify(request.body, request.headers as Record<string, string>)).toThrow();
  });

  it('keeps the webhook-id across attempts while the timestamp and signature are per attempt', async () => {
    const first = await send('/hook', { now: () => new Date(Date.now() - 60_000) });
    const second = await send('/hook');
    expect([first.outcome, second.outcome]).toEqual(['delivered', 'delivered']);
    const [a, b] = receiver.requests;
    expect(a.headers['webhook-id']).toBe(b.headers['webhook-id']);
    expect(a.headers['webhook-timestamp']).not.toBe(b.headers['webhook-timestamp']);
    expect(a.headers['webhook-signature']).not.toBe(b.headers['webhook-signature']);
  });

  it('sends both signatures during a secret rotation, each verifiable', async () => {
    const previous = generateWebhookSecret();
    await send('/hook', {}, [secret, previous]);
    const [request] = receiver.requests;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const s of [secret, previous]) {
      expect(() => new Webhook(s).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    }
  });

  it('does not follow redirects: 3xx is a failure', async () => {
    receiver.setHandler((req, res) => {
      if (req.url === '/moved') res.writeHead(302, { location: `${receiver.baseUrl}/target` }).end();
      else res.writeHead(200).end('ok');
    });
    const result = await send('/moved');
    expect(result).toMatchObject({ outcome: 'retry', statusCode: 302 });
    expect(result.error).toMatch(/redirect to https:\/\/127\.0\.0\.1:\d+\/target not followed/);
    expect(receiver.requests.map((r) => r.url)).toEqual(['/moved']);
  });

  it('treats 410 Gone as final', async () => {
    receiver.setHandler((_req, res) => res.writeHead(410).end());
    expect(await send()).toMatchObject({ outcome: 'gone', statusCode: 410 });
  });

  it('retries other non-2xx answers', async () => {
    for (const status of [400, 404, 500]) {
      receiver.setHandler((_req, res) => res.writeHead(status).end('nope'));
      expect(await send()).toMatchObject({ outcome: 'retry', statusCode: status, responseBody: 'nope' });
    }
  });

  it('honours Retry-After on 429 (seconds) and 503 (HTTP date)', async () => {
    receiver.setHandler((_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    expect(await send()).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterSeconds: 120 });

    const later = new Date(Date.now() + 3600_000);
    receiver.setHandler((_req, res) => res.writeHead(503, { 'retry-after': later.toUTCString() }).end());
    const result = await send();
    expect(result).toMatchObject({ outcome: 'retry', statusCode: 503 });
    expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(3598);
    expect(result.retryAfterSeconds).toBeLessThanOrEqual(3600);

    receiver.setHandler((_req, res) => res.writeHead(500, { 'retry-after': '120' }).end());
    expect((await send()).retryAfterSeconds).toBeUndefined();
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    receiver.setHandler(() => new Promise(() => undefined));
    const result = await send('/hook', { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: 'retry', error: 'timed out after 300 ms' });
    expect(result.statusCode).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('times out on a response body that never ends', async () => {
    receiver.setHandler((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const result = await send('/hook', { timeoutMs: 300, maxResponseBytes: 1024 });
    expect(result).toMatchObject({ outcome: 'retry', error: 'timed out after 300 ms' });
  });

  it('reads at most the configured number of response bytes', async () => {
    const huge = 'y'.repeat(1024 * 1024);
    let written = 0;
    receiver.setHandler(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      for (let i = 0; i < 64 && !res.destroyed; i++) {
        const ok = res.write(huge);
        written += huge.length;
        if (!ok) await new Promise((r) => setTimeout(r, 20));
      }
      res.end();
    });
    const result = await send('/hook', { maxResponseBytes: 100 });
    expect(result.outcome).toBe('delivered');
    expect(result.responseBody).toBe('y'.repeat(100));
    expect(written).toBeLessThan(64 * huge.length);
  });

  it('fails TLS verification against a CA it does not trust', async () => {
    const result = await send('/hook', { ca: undefined });
    expect(result.outcome).toBe('retry');
    expect(result.error).toMatch(/self[- ]signed|unable to (get|verify)|UNABLE_TO/i);
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a refused connection as a retry', async () => {
    const closed = await startHttpsReceiver();
    const url = `${closed.baseUrl}/hook`;
    await closed.close();
    const result = await postWebhookAttempt({ url, webhookId: 'msg_x', body, secrets: [secret] }, options);
    expect(result).toMatchObject({ outcome: 'retry' });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });
});

describe('address safety at delivery time', () => {
  it('refuses a loopback receiver without WEBHOOK_ALLOW_PRIVATE and sends nothing', async () => {
    const result = await send('/hook', { allowPrivate: false });
    expect(result).toMatchObject({ outcome: 'retry' });
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses a host name that resolves to a private address', async () => {
    const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    const result = await postWebhookAttempt(
      { url: `https://receiver.test:${receiver.port}/hook`, webhookId: 'msg_x', body, secrets: [secret] },
      { ...options, allowPrivate: false, resolve: rebinding },
    );
    expect(result.outcome).toBe('retry');
    expect(result.error).toMatch(/127\.0\.0\.1 is a loopback address \(receiver\.test resolves to it\)/);
    expect(receiver.requests).toHaveLength(0);
  });

  it('connects to the checked address and verifies TLS against the host name', async () => {
    // receiver.test exists only in this resolver: the request can only arrive if the connection
    // uses the pinned address rather than a second DNS lookup.
    const resolve: Resolver = async (host) => {
      if (host !== 'receiver.test') throw new Error(`unexpected lookup of ${host}`);
      return [{ address: '127.0.0.1', family: 4 }];
    };
    const result = await postWebhookAttempt(
      { url: `https://receiver.test:${receiver.port}/pinned`, webhookId: 'msg_x', body, secrets: [secret] },
      { ...options, resolve },
    );
    expect(result).toMatchObject({ outcome: 'delivered', statusCode: 200 });
    expect(receiver.requests[0].headers.host).toBe(`receiver.test:${receiver.port}`);
  });

  it('never retries a URL that is not https', async () => {
    const result = await postWebhookAttempt(
      { url: `http://127.0.0.1:${receiver.port}/hook`, webhookId: 'msg_x', body, secrets: [secret] },
      options,
    );
    expect(result).toMatchObject({ outcome: 'gone' });
    expect(result.error).toMatch(/https/);
  });
});
