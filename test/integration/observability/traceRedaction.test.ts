/**
 * No file id, no object key and no credential of a query in any span: an upload (presign, PUT to MinIO, its status,
 * its file URL), a job that reads it and stores its output, the download of that output, the job's signed events URL
 * (`?token=`) and a Cog server's webhook (`?prediction=…&secret=…`), on the real stack with an in-memory exporter.
 * File ids are bearer credentials (the id alone reads the file), the webhook secret ends a job, and compose exports
 * traces by default.
 *
 * Tracing is installed before anything loads Express or pg (its instrumentations patch them as they load), so the
 * stack is imported dynamically. This process's own fetches are traced too, and redacted like the services' spans.
 */
import { randomBytes } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTracing, type Tracing } from '../../../src/observability/tracing';
import { installTracing } from '../../../src/observability/tracingSdk';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: import('../../support/stack').TestStack;
let fileId: string;
let uploadKey: string;
let outputKey: string;
let eventsToken: string;
let webhookSecret: string;
let spans: ReadableSpan[];

/** Everything a span carries as text: its name, attributes, events and status. */
function spanText(span: ReadableSpan): string {
  return JSON.stringify({ name: span.name, attributes: span.attributes, events: span.events, status: span.status });
}

beforeAll(async () => {
  const { loadConfig } = await import('../../../src/config');
  tracing = useTracing(installTracing(loadConfig(), 'genmedia-test', new SimpleSpanProcessor(exporter))!);
  const { createTestAccount, startTestStack } = await import('../../support/stack');
  const { get, post, waitForFinal } = await import('../../support/api');

  stack = await startTestStack({ providers: ['motionworks'], tracing });
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });

  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 20, g: 80, b: 200 } } }).png().toBuffer();
  const presigned = await post(`${stack.url}/v1/uploads/presign`, account.apiKey, { filename: 'scene.png', contentType: 'image/png', size: png.length });
  expect(presigned.status).toBe(200);
  const { uploadUrl, fileUrl } = presigned.body.data;
  fileId = fileUrl.split('/').pop();
  uploadKey = (await stack.prisma.upload.findUniqueOrThrow({ where: { id: fileId } })).objectKey;
  const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
  expect(put.status).toBe(200);
  expect((await get(`${stack.url}/v1/uploads/${fileId}`, account.apiKey)).status).toBe(200);
  expect((await fetch(fileUrl, { redirect: 'manual' })).status).toBe(302);

  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
    model: 'motionworks/reel-2/image-to-video',
    input: { prompt: 'the scene comes alive', image_url: fileUrl },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  const job = await waitForFinal(stack.api, account.apiKey, submitted.body.jobId, 60_000);
  expect(job.status, JSON.stringify(job.error)).toBe('completed');
  const stored = await stack.prisma.job.findUniqueOrThrow({ where: { id: job.jobId }, select: { outputs: true } });
  outputKey = (stored.outputs as { key: string }[])[0].key;
  expect((await fetch(job.outputs[0].url)).status).toBe(200);

  // The job's signed events URL: its token reads the job's events.
  const { eventsUrl } = (await get(`${stack.url}/v1/jobs/${job.jobId}`, account.apiKey)).body;
  eventsToken = new URL(eventsUrl).searchParams.get('token')!;
  expect(eventsToken.length).toBeGreaterThan(20);
  const events = await fetch(eventsUrl, { signal: AbortSignal.timeout(5_000) });
  expect(events.status).toBe(200);
  await events.body?.cancel();

  // A Cog server's webhook for a prediction whose slot is leased: the URL's secret is taken, and must not be kept.
  const { createCogPredictionStore } = await import('../../../src/providers/cog/predictionStore');
  const { hashOf, newWebhookSecret, webhookUrlWith } = await import('../../../src/providers/cog/webhooks');
  const { COG_CALLBACK_PATH } = await import('../../../src/shared/cog');
  const predictionId = `redaction-${randomBytes(6).toString('hex')}`;
  webhookSecret = newWebhookSecret();
  const leased = await createCogPredictionStore(stack.prisma).lease({
    id: predictionId,
    providerId: 'redaction-cog',
    serverUrl: 'http://127.0.0.1:9',
    slots: 1,
    secretHash: hashOf(webhookSecret),
    expiresAt: new Date(Date.now() + 60_000),
  });
  expect(leased).toBe(true);
  const webhook = await fetch(webhookUrlWith(`${stack.url}${COG_CALLBACK_PATH}`, predictionId, webhookSecret), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: predictionId, status: 'processing', logs: 'step 1/4' }),
  });
  expect(webhook.status, await webhook.clone().text()).toBe(200);
  await stack.prisma.cogPrediction.delete({ where: { id: predictionId } });
  // The last client span ends as the download's body arrives; the API's sweep of open uploads may still be ending one.
  await new Promise((r) => setTimeout(r, 500));
  spans = exporter.getFinishedSpans();
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await tracing?.shutdown();
});

describe('spans', () => {
  it('were recorded for the requests, the storage calls and the job', () => {
    expect(spans.length).toBeGreaterThan(30);
    const names = spans.map((s) => s.name);
    expect(names).toContain('GET /v1/files/:fileId');
    expect(names).toContain('RunActivity:startGeneration');
    // MinIO requests (the provider's read of the upload and its output PUT, the API's inspection) are traced.
    const buckets = [stack.config.minio.uploadsBucket, stack.config.minio.outputsBucket];
    const storageUrls = spans.map((s) => String(s.attributes['url.full'] ?? '')).filter((u) => buckets.some((b) => u.includes(`/${b}/`)));
    expect(storageUrls.length).toBeGreaterThan(2);
    expect(storageUrls).toContain(`${stack.config.minio.endpoint}/${stack.config.minio.outputsBucket}/:objectKey`);
  });

  it("were recorded for the Cog webhook, by the API and by this process's fetch, its secret redacted", () => {
    const webhookSpans = spans.filter((s) => spanText(s).includes('/v1/providers/cog/callback'));
    const kinds = new Set(webhookSpans.map((s) => s.kind));
    expect(kinds).toContain(SpanKind.SERVER);
    expect(kinds).toContain(SpanKind.CLIENT);
    for (const span of webhookSpans.filter((s) => s.kind !== SpanKind.INTERNAL)) expect(spanText(span)).toContain('secret=:redacted');
  });

  it('carry no credential of a query: the webhook secret and the events token, as given or URL-encoded', () => {
    const credentials = [webhookSecret, eventsToken, encodeURIComponent(eventsToken)];
    const leaks = spans.map((s) => ({ name: s.name, text: spanText(s) })).filter(({ text }) => credentials.some((secret) => text.includes(secret)));
    expect(leaks).toEqual([]);
  });

  it('carry no file id and no object key, in names, attributes, events or status', () => {
    const leaks = spans
      .map((s) => ({ name: s.name, text: spanText(s) }))
      .filter(({ text }) => [fileId, uploadKey, outputKey, encodeURIComponent(uploadKey), encodeURIComponent(outputKey)].some((secret) => text.includes(secret)));
    expect(leaks).toEqual([]);
  });
});
