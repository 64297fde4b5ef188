/**
 * A batch's progress on the real stack: its Server-Sent Events stream (each change of its counts, coalesced, then the
 * final event and the end; Last-Event-ID; the stream told of changes by PostgreSQL, not by polling), and its archive's
 * results.jsonl, which matches GET /results.
 */
import { execFileSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, get, post } from '../../support/api';
import { collectSse, openSse, type SseMessage } from '../../support/sse';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';

const MODEL = 'pixelforge/forge-pro/text-to-image';
/** A model whose provider has no worker in this stack: its items are admitted and then wait. */
const IDLE_MODEL = 'lumina/lumi-xl/text-to-image';
const INTERVAL_MS = 300;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { batches: { roundIntervalMs: 100, eventsIntervalMs: INTERVAL_MS } } });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

function lines(n: number, model = MODEL) {
  return Array.from({ length: n }, (_, i) => ({ customId: `item-${i + 1}`, model, input: { prompt: `catalogue item ${i + 1}` } }));
}

async function submit(apiKey: string, body: Record<string, unknown>): Promise<string> {
  const created = await post(`${stack.url}/v1/batches`, apiKey, body);
  expect(created.status).toBe(201);
  return created.body.batchId;
}

const finalItems = (m: SseMessage) => m.data.counts.total - m.data.counts.queued - m.data.counts.running;

/** The entries of a ZIP and their bytes, as Python's zipfile reads them (an independent reader). */
function zipEntries(bytes: Buffer): Map<string, Buffer> {
  const listing = execFileSync(
    'python3',
    ['-c', 'import sys, io, zipfile, json, base64; z = zipfile.ZipFile(io.BytesIO(sys.stdin.buffer.read())); print(json.dumps([[i.filename, base64.b64encode(z.read(i)).decode()] for i in z.infolist()]))'],
    { input: bytes, maxBuffer: 64 * 1024 * 1024 },
  );
  return new Map((JSON.parse(listing.toString()) as [string, string][]).map(([name, data]) => [name, Buffer.from(data, 'base64')]));
}

/** A result line without its signed URLs' signatures, which differ between two readings. */
function unsigned(line: { outputs: { url: string }[] }) {
  return { ...line, outputs: line.outputs.map((output) => ({ ...output, url: output.url.split('?')[0] })) };
}

describe('GET /v1/batches/{batchId}/events', () => {
  it('streams the batch as its items finish, at most one event per interval, then batch.completed, and closes', async () => {
    // One item at a time (half of two concurrent jobs), so the counts move in several steps.
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 2 });
    const batchId = await submit(account.apiKey, { items: lines(6) });
    const stream = await openSse(`${stack.url}/v1/batches/${batchId}/events`, account.apiKey);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const received: { at: number; message: SseMessage }[] = [];
    for await (const message of stream.messages) received.push({ at: Date.now(), message });
    const messages = received.map((r) => r.message);

    expect(messages.length).toBeGreaterThanOrEqual(3);
    expect(messages.slice(0, -1).every((m) => m.event === 'batch.progress' && m.data.status === 'running')).toBe(true);
    const last = messages.at(-1)!;
    expect(last.event).toBe('batch.completed');
    expect(last.data).toMatchObject({ batchId, status: 'completed', counts: { total: 6, completed: 6, queued: 0, running: 0 } });
    // The final event is the batch as GET shows it; each event says something new; final items never go back.
    const { estimatedCompletionTime: _eta, ...shown } = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
    expect(last.data).toMatchObject(shown);
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
    const finals = messages.map(finalItems);
    expect(finals).toEqual([...finals].sort((a, b) => a - b));
    // While an item is in flight, the batch's completion is estimated from it: a median and a later 90th percentile.
    const estimated = messages.filter((m) => m.event === 'batch.progress' && m.data.estimatedCompletionTimeP90 !== null);
    expect(estimated.length).toBeGreaterThan(0);
    for (const m of estimated) {
      expect(Date.parse(m.data.estimatedCompletionTimeP90)).toBeGreaterThanOrEqual(Date.parse(m.data.estimatedCompletionTime));
      expect(m.data.estimatedExpiringItems).toBeNull();
    }
    expect(last.data).toMatchObject({ estimatedCompletionTime: null, estimatedCompletionTimeP90: null, estimatedExpiringItems: null });
    for (let i = 1; i < received.length; i++) expect(received[i]!.at - received[i - 1]!.at).toBeGreaterThanOrEqual(INTERVAL_MS - 50);

    // A reconnect with the final event's id is told that it is over; with an earlier one, it gets the batch as it is.
    const over = await fetch(`${stack.url}/v1/batches/${batchId}/events`, { headers: bearer(account.apiKey, { accept: 'text/event-stream', 'last-event-id': last.id! }) });
    expect(over.status).toBe(204);
    const again = await collectSse(await openSse(`${stack.url}/v1/batches/${batchId}/events`, account.apiKey, { 'last-event-id': messages[0]!.id! }));
    expect(again.map((m) => [m.event, m.id])).toEqual([['batch.completed', last.id]]);
  }, 120_000);

  it('answers the batch as JSON without an event-stream Accept, 404 for another account, 400 for a malformed Last-Event-ID', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const other = await createTestAccount(stack.prisma);
    const batchId = await submit(account.apiKey, { items: lines(1) });
    const json = await get(`${stack.url}/v1/batches/${batchId}/events`, account.apiKey);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ batchId, counts: { total: 1 } });
    const foreign = await openSse(`${stack.url}/v1/batches/${batchId}/events`, other.apiKey);
    expect(foreign.status).toBe(404);
    foreign.abort();
    const malformed = await fetch(`${stack.url}/v1/batches/${batchId}/events`, { headers: bearer(account.apiKey, { accept: 'text/event-stream', 'last-event-id': 'not an id!' }) });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');

    // Progress webhooks are asked for with a webhookUrl, and only by the events a batch has.
    const withoutUrl = await post(`${stack.url}/v1/batches`, account.apiKey, { items: lines(1), webhookEvents: ['batch.progress'] });
    expect(withoutUrl.status).toBe(400);
    expect(withoutUrl.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('webhookEvents needs a webhookUrl') });
    const unknown = await post(`${stack.url}/v1/batches`, account.apiKey, { items: lines(1), webhookUrl: 'https://example.com/hook', webhookEvents: ['job.completed'] });
    expect(unknown.status).toBe(400);
    expect(json.body.webhookEvents).toEqual([]);
  }, 60_000);

  it('sends nothing while the batch stands still, hears a cancel through PostgreSQL, and ends with the cancelled batch', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 4 });
    const batchId = await submit(account.apiKey, { items: lines(3, IDLE_MODEL) });
    // The items are admitted (two of them, the account's batch share), then wait for a worker that never comes.
    await eventually(async () => {
      const batch = (await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body;
      return batch.counts.running === 2 ? batch : undefined;
    }, 30_000, 100);

    const listener = new pg.Client({ connectionString: stack.config.database.url });
    await listener.connect();
    const notified: string[] = [];
    listener.on('notification', (message) => notified.push(String(message.payload)));
    await listener.query('LISTEN batch_changes');
    try {
      const listenersBefore = stack.api.deps.events.listenerCount();
      const streams = await Promise.all([1, 2, 3].map(() => openSse(`${stack.url}/v1/batches/${batchId}/events`, account.apiKey)));
      const iterators = streams.map((s) => s.messages[Symbol.asyncIterator]());
      const firsts = await Promise.all(iterators.map((it) => it.next()));
      for (const first of firsts) expect(first.value).toMatchObject({ event: 'batch.progress', data: { status: 'running', counts: { running: 2, queued: 1 } } });
      expect(stack.api.deps.events.listenerCount()).toBe(listenersBefore + 3);

      // Rounds go on every 100 ms, but nothing changes: no notification, and no event.
      const pending = iterators.map((it) => it.next());
      const silent = await Promise.race([Promise.all(pending).then(() => 'event'), new Promise((resolve) => setTimeout(() => resolve('silent'), 2000))]);
      expect(silent).toBe('silent');
      expect(notified.filter((id) => id === batchId)).toEqual([]);

      const cancelled = await post(`${stack.url}/v1/batches/${batchId}/cancel`, account.apiKey);
      expect(cancelled.status).toBe(200);
      const rests = await Promise.all(
        pending.map(async (next, i) => {
          const first = await next;
          const rest = [first.value as SseMessage];
          for (let r = await iterators[i]!.next(); !r.done; r = await iterators[i]!.next()) rest.push(r.value);
          return rest;
        }),
      );
      for (const rest of rests) {
        expect(rest.at(-1)).toMatchObject({ event: 'batch.completed', data: { status: 'cancelled', counts: { queued: 0, running: 0, cancelled: 3 } } });
      }
      expect(notified).toContain(batchId);
      await eventually(async () => (stack.api.deps.events.listenerCount() === listenersBefore ? true : undefined), 5000, 50);
    } finally {
      await listener.end();
    }
  }, 90_000);
});

describe('GET /v1/batches/{batchId}/archive', () => {
  it("lists every output, and its results.jsonl is the batch's results", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n, maxConcurrentJobs: 10 });
    const items = [...lines(4), { customId: 'broken', model: MODEL, input: { prompt: 'a broken item [fail:permanent]' } }];
    const batchId = await submit(account.apiKey, { items });
    await eventually(async () => ((await get(`${stack.url}/v1/batches/${batchId}`, account.apiKey)).body.status === 'completed' ? true : undefined), 60_000, 100);

    const results = (await (await fetch(`${stack.url}/v1/batches/${batchId}/results`, { headers: bearer(account.apiKey) })).text()).trim().split('\n').map((text) => JSON.parse(text));
    const archive = await fetch(`${stack.url}/v1/batches/${batchId}/archive`, { headers: bearer(account.apiKey) });
    expect(archive.status).toBe(200);
    const entries = zipEntries(Buffer.from(await archive.arrayBuffer()));
    expect([...entries.keys()].sort()).toEqual(['item-1.png', 'item-2.png', 'item-3.png', 'item-4.png', 'results.jsonl']);
    for (const name of ['item-1.png', 'item-4.png']) expect(entries.get(name)!.subarray(1, 4).toString()).toBe('PNG');
    const archived = entries.get('results.jsonl')!.toString().trim().split('\n').map((text) => JSON.parse(text));
    expect(archived.map(unsigned)).toEqual(results.map(unsigned));
    expect(archived.map((r) => r.status)).toEqual(['completed', 'completed', 'completed', 'completed', 'failed']);
  }, 90_000);
});
