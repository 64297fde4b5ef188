/**
 * Job event streams on one API process:
 *  1. memory: the API's RSS idle, with 200 open streams (150 per-job, 50 account-wide), and while events flow to all
 *     of them; the API runs as a child process (`tsx src/api/server.ts`) so its RSS is its own;
 *  2. latency: from a job's progress change being committed in PostgreSQL to the SSE client receiving the event,
 *     beside the raw LISTEN/NOTIFY latency of the same changes on a node-postgres connection (the floor any design
 *     has), and beside NOTIFY plus one read of the event row (what a PostgreSQL-backed stream cannot avoid).
 * Jobs are admitted straight through the job store and stay pending (no workflow: nothing else moves them), then
 * their progress is updated in PostgreSQL as the provider activity does, so every event comes from the real trigger
 * and reaches the client through the real LISTEN hub and SSE route.
 */
import type { ChildProcess } from 'node:child_process';
import { createParser } from 'eventsource-parser';
import { Client as PgClient } from 'pg';
import { loadConfig } from '../src/config';
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { createJobStore } from '../src/jobs/store';
import { newJobId } from '../src/jobs/submit';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { type ApiProcess, mb, medianRss, RSS_SAMPLES, rssKb, sleep, startApiProcess, stopProcess, until } from './processes';
import { fmt, summarize } from './stats';

const ACCOUNTS = 5;
const JOB_STREAMS = 150;
const ACCOUNT_STREAMS = 50;
const LOAD_ROUNDS = 5;
const LATENCY_JOBS = 30;
const LATENCY_ROUNDS = 10;
/** The trigger keeps at most one progress event per job and second; rounds touch each job once. */
const ROUND_SPACING_MS = 1_100;
const EVENT_TIMEOUT_MS = 10_000;

interface BenchJob {
  jobId: string;
  account: TestAccount;
}

export interface OpenStream {
  close(): void;
}

type Summary = ReturnType<typeof summarize>;

export async function sseFanoutBench(): Promise<void> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const arrivals = new Arrivals();
  const delivered = { count: 0 };
  const streams: OpenStream[] = [];
  let api: ApiProcess | null = null;
  try {
    const accounts = await Promise.all(
      Array.from({ length: ACCOUNTS }, () => createTestAccount(prisma, { creditsMicroCents: 1_000_000_000n, maxConcurrentJobs: 1000 })),
    );
    const jobs = await admitJobs(prisma, accounts, JOB_STREAMS);
    api = await startApiProcess();
    await warmUp(api.url, accounts[0]);
    const idle = await medianRss(api.child);

    const onEvent = (data: string) => {
      delivered.count += 1;
      const event = JSON.parse(data) as { jobId: string; progress: number };
      arrivals.record(`${event.jobId}:${event.progress}`);
    };
    for (const job of jobs) streams.push(await openStream(`${api.url}/v1/jobs/${job.jobId}/events`, job.account.apiKey, onEvent));
    for (let i = 0; i < ACCOUNT_STREAMS; i++) {
      streams.push(await openStream(`${api.url}/v1/jobs/events`, accounts[i % ACCOUNTS].apiKey, () => (delivered.count += 1)));
    }
    await sleep(3_000);
    const open = await medianRss(api.child);

    const load = await driveEvents(prisma, api.child, jobs, delivered);
    const latency = await measureLatency(config.database.url, jobs.slice(0, LATENCY_JOBS), arrivals);

    printMemory({ idle, open, load });
    printLatency(latency);
  } finally {
    for (const stream of streams) stream.close();
    if (api) await stopProcess(api.child);
    await prisma.$disconnect();
  }
}

async function admitJobs(prisma: PrismaClient, accounts: TestAccount[], count: number): Promise<BenchJob[]> {
  const store = createJobStore(prisma);
  const jobs: BenchJob[] = [];
  for (let i = 0; i < count; i++) {
    const account = accounts[i % accounts.length];
    const jobId = newJobId();
    await store.admit({
      jobId,
      accountId: account.accountId,
      apiKeyId: account.keyId,
      requestId: null,
      modelSlug: 'pixelforge/forge-pro/text-to-image',
      modelId: 'pixelforge/forge-pro/text-to-image',
      versionId: 'v2',
      routes: [{ providerId: 'pixelforge', taskQueue: 'provider.pixelforge', expectedProcessingSeconds: 30 }],
      capability: 'text-to-image',
      input: { prompt: 'a lighthouse, streamed' },
      webhookUrl: null,
      costMicroCents: 45_000,
      admitBefore: new Date(Date.now() + 60_000).toISOString(),
    });
    jobs.push({ jobId, account });
  }
  return jobs;
}

interface LoadFigures {
  peakRss: number;
  medianRss: number;
  changes: number;
  delivered: number;
  expected: number;
}

/**
 * Every job's progress changes once a round, all at once, while the API's RSS is sampled every 200 ms. Each change
 * reaches its job stream and the account's 10 account streams; the per-job streams also replayed `job.created`.
 */
async function driveEvents(prisma: PrismaClient, child: ChildProcess, jobs: BenchJob[], delivered: { count: number }): Promise<LoadFigures> {
  const streamsPerChange = 1 + ACCOUNT_STREAMS / ACCOUNTS;
  const expected = jobs.length + LOAD_ROUNDS * jobs.length * streamsPerChange;
  const samples: number[] = [];
  const sampler = setInterval(() => samples.push(rssKb(child)), 200);
  try {
    for (let round = 1; round <= LOAD_ROUNDS; round++) {
      await Promise.all(jobs.map((job) => prisma.job.update({ where: { id: job.jobId }, data: { progress: round * 10, updatedAt: new Date() } })));
      await sleep(ROUND_SPACING_MS);
    }
    await until(() => delivered.count >= expected, EVENT_TIMEOUT_MS);
  } finally {
    clearInterval(sampler);
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    peakRss: sorted[sorted.length - 1],
    medianRss: sorted[Math.floor(sorted.length / 2)],
    changes: LOAD_ROUNDS * jobs.length,
    delivered: delivered.count,
    expected,
  };
}

interface LatencyFigures {
  sse: Summary;
  raw: Summary;
  rawWithRead: Summary;
  commit: Summary;
}

/**
 * One change at a time, on its own node-postgres connection: BEGIN, the activity's progress UPDATE, then COMMIT.
 * Latencies count from the moment COMMIT is sent: the commit lands somewhere before its acknowledgement, and the
 * notification is sent at commit, so it can arrive before the acknowledgement does. Both paths share that origin.
 */
async function measureLatency(databaseUrl: string, jobs: BenchJob[], arrivals: Arrivals): Promise<LatencyFigures> {
  const writer = await connectPg(databaseUrl);
  const listener = await connectPg(databaseUrl);
  const reader = await connectPg(databaseUrl);
  const notified = new Arrivals();
  listener.on('notification', (n) => notified.record(n.payload ?? ''));
  await listener.query('LISTEN job_events');
  const figures = { sse: [] as number[], raw: [] as number[], rawWithRead: [] as number[], commit: [] as number[] };
  try {
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      const progress = 60 + round;
      for (const job of jobs) {
        // The NOTIFY payload is the account id: with one change in flight, the account's next notification is this one.
        const sseArrival = arrivals.expect(`${job.jobId}:${progress}`, EVENT_TIMEOUT_MS);
        const rawArrival = notified.expect(job.account.accountId, EVENT_TIMEOUT_MS);
        const { commitSent, committed } = await commitProgress(writer, job.jobId, progress);
        const [received, notifiedAt] = await Promise.all([sseArrival, rawArrival]);
        figures.sse.push(received - commitSent);
        figures.raw.push(notifiedAt - commitSent);
        figures.commit.push(committed - commitSent);
        figures.rawWithRead.push(notifiedAt - commitSent + (await timeEventRead(reader, job.jobId)));
      }
      await sleep(ROUND_SPACING_MS);
    }
  } finally {
    await Promise.all([writer.end(), listener.end(), reader.end()]);
  }
  return { sse: summarize(figures.sse), raw: summarize(figures.raw), rawWithRead: summarize(figures.rawWithRead), commit: summarize(figures.commit) };
}

async function commitProgress(writer: PgClient, jobId: string, progress: number): Promise<{ commitSent: number; committed: number }> {
  await writer.query('BEGIN');
  await writer.query('UPDATE jobs SET progress = $2, updated_at = now() WHERE id = $1', [jobId, progress]);
  const commitSent = performance.now();
  await writer.query('COMMIT');
  return { commitSent, committed: performance.now() };
}

/** The read the hub makes after a notification, timed on its own connection. */
async function timeEventRead(reader: PgClient, jobId: string): Promise<number> {
  const started = performance.now();
  await reader.query('SELECT * FROM job_events WHERE job_id = $1 ORDER BY sequence DESC LIMIT 1', [jobId]);
  return performance.now() - started;
}

async function connectPg(databaseUrl: string): Promise<PgClient> {
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  return client;
}

/** Arrival times of expected keys, awaited without polling so waiting takes no CPU from the API and PostgreSQL. */
class Arrivals {
  private readonly waiting = new Map<string, (at: number) => void>();

  expect(key: string, timeoutMs: number): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        reject(new Error(`no event for ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.set(key, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  /** Resolves the expectation of `key`, if any; other arrivals are ignored. */
  record(key: string, at = performance.now()): void {
    const resolve = this.waiting.get(key);
    if (!resolve) return;
    this.waiting.delete(key);
    resolve(at);
  }
}

function printMemory(figures: { idle: number; open: number; load: LoadFigures }): void {
  const { idle, open, load } = figures;
  const total = JOB_STREAMS + ACCOUNT_STREAMS;
  const row = (label: string, kb: number, note = '') =>
    console.log(`  ${label.padEnd(34)} ${mb(kb).padStart(9)} ${(kb === idle ? '' : `+${mb(kb - idle)}`).padStart(10)}   ${note}`.trimEnd());
  console.log(`job event streams: one API process (child), ${total} open streams (${JOB_STREAMS} per-job on pending jobs, ${ACCOUNT_STREAMS} account-wide, ${ACCOUNTS} accounts)`);
  console.log(`  ${'API RSS (VmRSS)'.padEnd(34)} ${'RSS'.padStart(9)} ${'vs idle'.padStart(10)}`);
  row(`idle, warm (median of ${RSS_SAMPLES})`, idle);
  row(`${total} streams open (median of ${RSS_SAMPLES})`, open, `${((open - idle) / total).toFixed(1)} KB per stream`);
  row('events flowing (median)', load.medianRss);
  row('events flowing (peak)', load.peakRss);
  console.log(`  events flowing: ${load.changes} progress changes in ${LOAD_ROUNDS} rounds, ${load.delivered} of ${load.expected} expected events delivered`);
}

function printLatency(latency: LatencyFigures): void {
  const row = (label: string, s: Summary) => console.log(`  ${label.padEnd(32)} ${fmt(s.p50).padStart(10)} ${fmt(s.p95).padStart(10)} ${fmt(s.max).padStart(10)}`);
  console.log(`event latency, COMMIT sent → received (${latency.sse.n} progress changes over ${LATENCY_JOBS} jobs, all streams open):`);
  console.log(`  ${''.padEnd(32)} ${'p50'.padStart(10)} ${'p95'.padStart(10)} ${'max'.padStart(10)}`);
  row('SSE through the API', latency.sse);
  row('raw LISTEN/NOTIFY (node-postgres)', latency.raw);
  row('NOTIFY + read of the event row', latency.rawWithRead);
  row('COMMIT round trip (writer)', latency.commit);
  console.log(`  ${'ratio SSE / raw NOTIFY'.padEnd(32)} p50 ${ratio(latency.sse.p50, latency.raw.p50)}   p95 ${ratio(latency.sse.p95, latency.raw.p95)}`);
  console.log(`  ${'ratio SSE / (NOTIFY + read)'.padEnd(32)} p50 ${ratio(latency.sse.p50, latency.rawWithRead.p50)}   p95 ${ratio(latency.sse.p95, latency.rawWithRead.p95)}`);
}

/** An SSE connection read with eventsource-parser; `onData` sees each event's data. */
export async function openStream(url: string, apiKey: string, onData: (data: string) => void): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' }, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
  const parser = createParser({ onEvent: (message) => onData(message.data) });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted by close()
    }
  })();
  return { close: () => controller.abort() };
}

/** JIT, the Prisma pool and the hub's LISTEN connection, so the idle baseline is the warm process. */
async function warmUp(apiUrl: string, account: TestAccount): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${apiUrl}/v1/jobs?limit=5`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    if (res.status !== 200) throw new Error(`GET /v1/jobs answered ${res.status}`);
    await res.arrayBuffer();
  }
  const warm = await openStream(`${apiUrl}/v1/jobs/events`, account.apiKey, () => undefined);
  await sleep(500);
  warm.close();
  await sleep(1_000);
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(1)}x` : 'n/a';
}
