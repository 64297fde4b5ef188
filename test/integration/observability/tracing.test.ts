/**
 * One submit is one trace: HTTP request → Update-with-Start → job workflow → admission activity → provider activity
 * → webhook delivery, on the real stack with an in-memory span exporter.
 *
 * Tracing is installed before anything loads Express or pg (its instrumentations patch them as they load), so the
 * stack is imported dynamically.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTracing, type Tracing } from '../../../src/observability/tracing';
import { installTracing } from '../../../src/observability/tracingSdk';

const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let stack: import('../../support/stack').TestStack;
let receiver: import('../../support/httpsReceiver').HttpsReceiver;
let submitted: { status: number; headers: Headers; body: { jobId: string; requestId: string } };
let trace: ReadableSpan[];

const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** The spans as an indented tree, children in start order. */
function renderTree(spans: ReadableSpan[]): string {
  const byParent = new Map<string | undefined, ReadableSpan[]>();
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  for (const span of spans) {
    const parent = ids.has(parentId(span) ?? '') ? parentId(span) : undefined;
    byParent.set(parent, [...(byParent.get(parent) ?? []), span]);
  }
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    const children = (byParent.get(parent) ?? []).sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    for (const span of children) {
      const ms = span.duration[0] * 1000 + span.duration[1] / 1e6;
      lines.push(`${'  '.repeat(depth)}${span.name} (${span.resource.attributes['service.name']}, ${ms.toFixed(1)} ms)`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines.join('\n');
}

beforeAll(async () => {
  const { loadConfig } = await import('../../../src/config');
  tracing = useTracing(installTracing(loadConfig(), 'genmedia-test', new SimpleSpanProcessor(exporter))!);
  const { createTestAccount, eventually, startTestStack } = await import('../../support/stack');
  const { startHttpsReceiver } = await import('../../support/httpsReceiver');
  const { get, imageJob, post } = await import('../jobs/helpers');

  receiver = await startHttpsReceiver();
  stack = await startTestStack({ providers: ['pixelforge'], webhookCa: receiver.caPem, tracing });
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
  submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { ...imageJob(), webhookUrl: `${receiver.baseUrl}/hook` });
  expect(submitted.status).toBe(201);
  const status = async () => (await get(`${stack.url}/v1/jobs/${submitted.body.jobId}`, account.apiKey)).body.status;
  await eventually(async () => ((await status()) === 'completed' ? true : undefined), 30_000);
  await eventually(async () => (receiver.requests.length === 1 ? true : undefined), 30_000);

  const traceId = submitted.headers.get('x-trace-id');
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  // The delivery's last spans end just after the receiver answered.
  await eventually(async () => {
    trace = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    return trace.some((s) => s.name === 'RunWorkflow:webhookDeliveryWorkflow') ? true : undefined;
  }, 15_000).catch(() => undefined);
  // The tree, for reading (test-output/traces/submit-trace.txt).
  const out = path.join(process.cwd(), 'test-output', 'traces');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'submit-trace.txt'), `${renderTree(trace)}\n`);
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await tracing?.shutdown();
});

describe('a submit, traced', () => {
  it('puts the trace id in the response headers next to the request id', () => {
    expect(submitted.headers.get('x-request-id')).toBe(submitted.body.requestId);
    expect(submitted.headers.get('x-trace-id')).toBe(trace[0].spanContext().traceId);
  });

  it('is one trace from the HTTP request to the provider activity and the webhook delivery', () => {
    const names = trace.map((s) => s.name);
    // The root is this test's own fetch (traced too); the API's server span is its child.
    const root = trace.filter((s) => !trace.some((p) => p.spanContext().spanId === parentId(s)));
    expect(root).toHaveLength(1);
    expect(root[0].parentSpanContext).toBeUndefined();
    const server = trace.filter((s) => parentId(s) === root[0].spanContext().spanId);
    expect(server.map((s) => s.name)).toEqual(['POST /v1/jobs/submit']);
    expect(server[0].attributes['http.route']).toBe('/v1/jobs/submit');

    for (const expected of [
      'UpdateWithStartWorkflow:admit',
      'HandleUpdate:admit',
      'RunWorkflow:jobWorkflow',
      'StartActivity:admitJob',
      'RunActivity:admitJob',
      'StartActivity:startGeneration',
      'RunActivity:startGeneration',
      'StartActivity:completeJob',
      'RunActivity:completeJob',
      'StartChildWorkflow:webhookDeliveryWorkflow',
      'RunActivity:attemptWebhookDelivery',
    ]) {
      expect(names).toContain(expected);
    }
    // PostgreSQL queries of the API and the activities, and the webhook's outbound POST.
    expect(trace.filter((s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql').length).toBeGreaterThan(3);
    expect(trace.some((s) => s.name === 'POST' && String(s.attributes['url.full'] ?? '').startsWith(receiver.baseUrl))).toBe(true);
  });

  it('links every span to a parent within the trace', () => {
    const ids = new Set(trace.map((s) => s.spanContext().spanId));
    const orphans = trace.filter((s) => !ids.has(parentId(s) ?? ''));
    expect(orphans).toHaveLength(1);
    expect(renderTree(trace).split('\n')[1]).toMatch(/^ {2}POST \/v1\/jobs\/submit /);
  });

  it('runs the provider activity under the admission workflow, after the admission', () => {
    const byName = (name: string) => trace.find((s) => s.name === name)!;
    const run = byName('RunWorkflow:jobWorkflow');
    const provider = byName('RunActivity:startGeneration');
    const ancestors = (span: ReadableSpan): string[] => {
      const parent = trace.find((s) => s.spanContext().spanId === parentId(span));
      return parent ? [parent.name, ...ancestors(parent)] : [];
    };
    expect(ancestors(provider)).toContain(run.name);
    expect(ancestors(run)).toEqual(expect.arrayContaining(['UpdateWithStartWorkflow:admit', 'POST /v1/jobs/submit']));
    const admit = byName('RunActivity:admitJob');
    expect(provider.startTime[0] * 1e9 + provider.startTime[1]).toBeGreaterThan(admit.startTime[0] * 1e9 + admit.startTime[1]);
  });
});
