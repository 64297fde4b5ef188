/**
 * A customer's own web page, on another origin and holding no API key, follows a job with the browser's native
 * `EventSource` through the job's signed `eventsUrl`, allowed by CORS for that origin only.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { imageJob, post } from '../../integration/jobs/helpers';
import { launchChromium } from './consoleSupport';

/** The customer's page: it opens the URL it is given and records every event, as a page of theirs would. */
const PAGE = `<!doctype html><html><body><script>
  window.received = [];
  window.follow = (url) => new Promise((resolve) => {
    const source = new EventSource(url);
    for (const type of ['job.created', 'job.processing', 'job.progress', 'job.completed', 'job.failed', 'job.cancelled']) {
      source.addEventListener(type, (event) => {
        window.received.push({ type, id: event.lastEventId, data: JSON.parse(event.data) });
        if (type === 'job.completed' || type === 'job.failed' || type === 'job.cancelled') { source.close(); resolve('done'); }
      });
    }
    source.onerror = () => { if (source.readyState === EventSource.CLOSED) resolve('closed'); };
  });
</script></body></html>`;

let pageServer: http.Server;
let pageOrigin: string;
let stack: TestStack;
let account: TestAccount;
let browser: Browser;

beforeAll(async () => {
  pageServer = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageOrigin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  stack = await startTestStack({ providers: ['pixelforge'], env: { CORS_ORIGINS: pageOrigin }, tuning: { providers: { timeScale: 0.05 } } });
  account = await createTestAccount(stack.prisma);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  await new Promise((resolve) => pageServer?.close(resolve));
});

describe("a job's signed events URL", () => {
  it('lets a page on an allowed origin follow the job with EventSource, without an API key', async () => {
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    expect(submitted.status).toBe(201);
    const { jobId, eventsUrl } = submitted.body;
    expect(eventsUrl).toMatch(new RegExp(`^${stack.url}/v1/jobs/${jobId}/events\\?token=`));

    const page = await (await browser.newContext()).newPage();
    await page.goto(pageOrigin);
    const ending = await page.evaluate((url) => (globalThis as any).follow(url), eventsUrl);
    const received: { type: string; id: string; data: any }[] = await page.evaluate(() => (globalThis as any).received);

    expect(ending).toBe('done');
    expect(received[0].type).toBe('job.created');
    expect(received.at(-1)).toMatchObject({ type: 'job.completed', data: { jobId, status: 'completed' } });
    expect(received.map((e) => e.id)).toEqual(received.map((_, i) => String(i + 1)));
    await page.context().close();
  });

  it('is refused to pages of other origins, and the token opens nothing but its own job', async () => {
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    const { jobId, eventsUrl } = submitted.body;

    // No CORS grant for an origin that is not configured: the browser withholds the answer from the page.
    const allowed = await fetch(eventsUrl, { headers: { origin: pageOrigin } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    const other = await fetch(eventsUrl, { headers: { origin: 'http://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();

    const token = new URL(eventsUrl).searchParams.get('token')!;
    const another = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob());
    const elsewhere = await fetch(`${stack.url}/v1/jobs/${another.body.jobId}/events?token=${encodeURIComponent(token)}`);
    expect(elsewhere.status).toBe(401);
    expect(((await elsewhere.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
    const accountStream = await fetch(`${stack.url}/v1/jobs/events?token=${encodeURIComponent(token)}`);
    expect(accountStream.status).toBe(401);
    const job = await fetch(`${stack.url}/v1/jobs/${jobId}?token=${encodeURIComponent(token)}`);
    expect(job.status).toBe(401);
    const tampered = await fetch(`${stack.url}/v1/jobs/${jobId}/events?token=${encodeURIComponent(token.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')))}`);
    expect(tampered.status).toBe(401);
  });
});
