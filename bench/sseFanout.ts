/**
 * Job event streams on one API process:
 *  1. memory: the API's RSS idle, with 200 open streams (150 per-job, 50 account-wide), and with events flowing
 *     to all of them; the API runs as a child process so its RSS is its own;
 *  2. latency: from a job's progress change committed in PostgreSQL to the SSE client receiving the event, beside
 *     the raw LISTEN/NOTIFY latency of the same changes on a node-postgres connection (the floor any design has).
 * Jobs are admitted straight through the job store (no workflow: nothing must move them on), and changed with the
 * same UPDATE the provider activity runs, so the events come from the real trigger and the real LISTEN hub.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import { Client as PgClient } from 'pg';
import { loadConfig, REPO_ROOT } from '../src/config';
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { createJobStore } from '../src/jobs/store';
import { newJobId } from '../src/jobs/submit';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { fmt, summarize } from './stats';

const JOB_STREAMS = 150;
const ACCOUNT_STREAMS = 50;
const LATENCY_JOBS = 30;
const LATENCY_ROUNDS = 10;
/** The trigger keeps at most one progress event per job and second. */
const ROUND_SPACING_MS = 1_100;

interface OpenStream {
  close(): void;
  /** Events received so far. */
  received: number;
}

export async function sseFanoutBench(): Promise<void> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const api = await startApiProcess();
  const streams: OpenStream[] = [];
  try {
    const accounts = await Promise.all(Array.from({ length: 5 }, () => createTestAccount(prisma, { creditsMicroCents: 1_000_000_000n, maxConcurrentJobs: 1000 })));
    const jobs = await admitJobs(prisma, accounts, JOB_STREAMS);
    await warmUp(api.url, accounts[0]);
    const idle = rssKb(api.child);

    for (const job of jobs) streams.push(await openStream(`${api.url}/v1/jobs/${job.jobId}/events`, job.account.apiKey));
    for (let i = 0; i < ACCOUNT_STREAMS; i++) {
      const account = accounts[i % accounts.length];
      streams.push(await openStream(`${api.url}/v1/jobs/events`, account.apiKey));
    }
    await sleep(3_000);
    const open = rssKb(api.child);

    // Events flowing: every job changes once a round; each change reaches its job stream and 10 account streams.
    for (let round = 1; round <= 3; round++) {
      await Promise.all(jobs.map((job) => setProgress(prisma, job.jobId, round * 10)));
      await sleep(ROUND_SPACING_MS);
    }
    await sleep(1_000);
    const flowing = rssKb(api.child);
    const delivered = streams.reduce((sum, s) => sum + s.received, 0);

    const latency = await measureLatency(prisma, config.database.url, api.url, jobs.slice(0, LATENCY_JOBS));

    const total = streams.length;
    console.log(`job event streams: one API process, ${total} open streams (${JOB_STREAMS} per-job, ${ACCOUNT_STREAMS} account-wide)`);
    console.log(`  API RSS idle (warm)              ${mb(idle)}`);
    console.log(`  API RSS with ${total} streams        ${mb(open)}   (+${mb(open - idle)}, ${((open - idle) / total).toFixed(1)} KB per stream)`);
    console.log(`  API RSS with events flowing      ${mb(flowing)}   (${delivered} events delivered)`);
    console.log(`event latency, progress change committed → received (${latency.sse.n} changes, ${LATENCY_JOBS} streams open):`);
    console.log(`  SSE through the API              p50 ${fmt(latency.sse.p50)}  p95 ${fmt(latency.sse.p95)}  max ${fmt(latency.sse.max)}`);
    console.log(`  raw LISTEN/NOTIFY (node-postgres) p50 ${fmt(latency.raw.p50)}  p95 ${fmt(latency.raw.p95)}  max ${fmt(latency.raw.max)}`);
    console.log(`  NOTIFY + read of the event row  p50 ${fmt(latency.rawWithRead.p50)}  p95 ${fmt(latency.rawWithRead.p95)}  max ${fmt(latency.rawWithRead.max)}`);
    console.log(
      `  ratio SSE / (NOTIFY + read) at p50: ${(latency.sse.p50 / latency.rawWithRead.p50).toFixed(1)}x, ` +
        `at p95: ${(latency.sse.p95 / latency.rawWithRead.p95).toFixed(1)}x`,
    );
  } finally {
    for (const stream of streams) stream.close();
    api.child.kill('SIGTERM');
    await prisma.$disconnect();
  }
}

interface BenchJob {
  jobId: string;
  account: TestAccount;
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
      providerId: 'pixelforge',
      capability: 'text-to-image',
      input: { prompt: 'a lighthouse, streamed' },
      webhookUrl: null,
      costMicroCents: 45_000,
      expectedProcessingSeconds: 30,
      admitBefore: new Date(Date.now() + 60_000).toISOString(),
    });
    jobs.push({ jobId, account });
  }
  return jobs;
}

/** The progress UPDATE the provider activity makes; the trigger turns it into an event and a NOTIFY. */
async function setProgress(prisma: PrismaClient, jobId: string, progress: number): Promise<number> {
  await prisma.job.update({ where: { id: jobId }, data: { progress, updatedAt: new Date() } });
  return performance.now();
}

async function measureLatency(prisma: PrismaClient, databaseUrl: string, apiUrl: string, jobs: BenchJob[]) {
  const receivedAt = new Map<string, number>();
  const notifiedAt = new Map<string, number[]>();
  const listener = new PgClient({ connectionString: databaseUrl });
  await listener.connect();
  const reader = new PgClient({ connectionString: databaseUrl });
  await reader.connect();
  await listener.query('LISTEN job_events');
  listener.on('notification', (n) => {
    const list = notifiedAt.get(n.payload ?? '') ?? [];
    list.push(performance.now());
    notifiedAt.set(n.payload ?? '', list);
  });
  const streams: OpenStream[] = [];
  for (const job of jobs) {
    streams.push(
      await openStream(`${apiUrl}/v1/jobs/${job.jobId}/events`, job.account.apiKey, (data) => {
        const event = JSON.parse(data) as { jobId: string; progress: number };
        receivedAt.set(`${event.jobId}:${event.progress}`, performance.now());
      }),
    );
  }
  await sleep(1_000);
  const sse: number[] = [];
  const raw: number[] = [];
  const rawWithRead: number[] = [];
  try {
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      const progress = 50 + round;
      // One change at a time: the NOTIFY payload is the account, so each notification is matched to its change.
      for (const job of jobs) {
        const notifiedBefore = notifiedAt.get(job.account.accountId)?.length ?? 0;
        const committed = await setProgress(prisma, job.jobId, progress);
        const received = await waitFor(() => receivedAt.get(`${job.jobId}:${progress}`));
        const notified = await waitFor(() => notifiedAt.get(job.account.accountId)?.[notifiedBefore]);
        sse.push(received - committed);
        raw.push(notified - committed);
        // A stream must read the event row after the notification: the least any PostgreSQL-backed stream adds.
        const readStarted = performance.now();
        await reader.query('SELECT * FROM job_events WHERE job_id = $1 ORDER BY sequence DESC LIMIT 1', [job.jobId]);
        rawWithRead.push(notified - committed + (performance.now() - readStarted));
      }
      await sleep(ROUND_SPACING_MS);
    }
  } finally {
    for (const stream of streams) stream.close();
    await listener.end();
    await reader.end();
  }
  return { sse: summarize(sse), raw: summarize(raw), rawWithRead: summarize(rawWithRead) };
}

async function waitFor(read: () => number | undefined, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('an event never arrived');
    await new Promise((r) => setImmediate(r));
  }
}

/** An SSE connection read with eventsource-parser; `onData` sees each event's data. */
async function openStream(url: string, apiKey: string, onData?: (data: string) => void): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${apiKey}`, accept: 'text/event-stream' }, signal: controller.signal });
  if (response.status !== 200 || !response.body) throw new Error(`${url} answered ${response.status}`);
  const stream: OpenStream = { received: 0, close: () => controller.abort() };
  const parser = createParser({
    onEvent: (message) => {
      stream.received += 1;
      onData?.(message.data);
    },
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // closed by close()
    }
  })();
  return stream;
}

async function warmUp(apiUrl: string, account: TestAccount): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await (await fetch(`${apiUrl}/v1/jobs?limit=5`, { headers: { authorization: `Bearer ${account.apiKey}` } })).arrayBuffer();
  }
  const warm = await openStream(`${apiUrl}/v1/jobs/events`, account.apiKey);
  await sleep(500);
  warm.close();
  await sleep(1_000);
}

async function startApiProcess(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'api', 'server.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), API_HOST: '127.0.0.1', PUBLIC_BASE_URL: url, LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) return { url, child };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('the API did not become ready');
    await sleep(250);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function rssKb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

function mb(kb: number): string {
  return `${(kb / 1024).toFixed(1)} MB`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

