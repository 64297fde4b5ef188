/**
 * Submit against the raw Temporal baseline, in one process and one run, on the same Temporal server:
 *  - genmedia: POST /v1/jobs/submit through the API (key check, validation, pricing, idempotency, Update-with-Start
 *    whose update charges in PostgreSQL), the workflow and pixelforge workers in this process;
 *  - baseline: Update-with-Start of a workflow whose update awaits one trivial activity, on its own task queue, with
 *    its worker in this process (bench/baseline/).
 * Figures: throughput of 400 submits at concurrency 16 (the two sides in alternating halves) and p50 latency at
 * concurrency 1 (alternating request by request), both of admission alone (genmedia's jobs go to a provider no worker
 * serves, so no rendering competes); then submit-to-completed at concurrency 1 with about 30 ms of work (the
 * built-in provider at a time scale of 0.001 against a 30 ms work activity).
 */
import crypto from 'node:crypto';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { startTestStack } from '../test/support/stack';
import { admitBaseline, type baselineJob } from './baseline/workflows';
import { startBaselineWorker } from './baseline/worker';
import { startTemporalServer } from '../test/support/temporalServer';
import { fmt, headline, printTable, runConcurrently, summarize, timed, type Headline } from './stats';

/** Admission alone: no worker serves lumina here, so these jobs stay pending and cost nothing after their submit. */
const ADMIT_MODEL = 'lumina/lumi-xl/text-to-image';
/** End to end: the built-in pixelforge worker renders it. */
const RUN_MODEL = 'pixelforge/forge-lite/text-to-image';
const SUBMITS = 400;
const CONCURRENCY = 16;
const LATENCY_ROUNDS = 60;
const E2E_ROUNDS = 30;
const WORK_MS = 30;

interface Figures {
  apiRate: number;
  rawRate: number;
  apiLatency: number[];
  rawLatency: number[];
  apiE2e: number[];
  rawE2e: number[];
}

/** Both engines, one after the other in this run: the dev server (SQLite) and the Temporal server on PostgreSQL. */
export async function submitBench(): Promise<Headline[]> {
  const dev = await measureSubmit({});
  const server = await startTemporalServer();
  let onPostgres: Figures;
  try {
    onPostgres = await measureSubmit({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' });
  } finally {
    await server.close();
  }
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
  const rows = [['what', 'engine', 'genmedia', 'raw baseline', 'ratio']];
  for (const [engine, f] of [
    ['dev server (SQLite)', dev],
    ['server on PostgreSQL', onPostgres],
  ] as const) {
    const p50 = (xs: number[]) => summarize(xs).p50;
    rows.push(
      [`throughput, ${SUBMITS} submits at c=${CONCURRENCY}`, engine, `${f.apiRate.toFixed(1)} jobs/s`, `${f.rawRate.toFixed(1)} jobs/s`, ratio(f.apiRate, f.rawRate)],
      [`submit latency at c=1 (p50, ${LATENCY_ROUNDS} each)`, engine, fmt(p50(f.apiLatency)), fmt(p50(f.rawLatency)), ratio(p50(f.apiLatency), p50(f.rawLatency))],
      [`submit to completed, ~${WORK_MS} ms work (p50, ${E2E_ROUNDS} each)`, engine, fmt(p50(f.apiE2e)), fmt(p50(f.rawE2e)), ratio(p50(f.apiE2e), p50(f.rawE2e))],
    );
  }
  console.log('submit: genmedia against raw Update-with-Start on the same Temporal server, one process, one run');
  printTable(rows);
  const p50 = (xs: number[]) => summarize(xs).p50;
  return [
    ['dev server', dev],
    ['server on PostgreSQL', onPostgres],
  ].flatMap(([engine, f]) => {
    const figures = f as Figures;
    return [
      headline(`submit throughput at c=${CONCURRENCY} vs raw, ${engine}`, figures.apiRate / figures.rawRate, 0.8, 'at least'),
      headline(`submit p50 at c=1 vs raw, ${engine}`, p50(figures.apiLatency) / p50(figures.rawLatency), 1.5, 'at most'),
      headline(`submit to completed p50 vs raw, ${engine}`, p50(figures.apiE2e) / p50(figures.rawE2e), 1.5, 'at most'),
    ];
  });
}

async function measureSubmit(env: NodeJS.ProcessEnv): Promise<Figures> {
  const stack = await startTestStack({ providers: ['pixelforge'], env: { LOG_LEVEL: 'error', ...env }, tuning: { providers: { timeScale: 0.001 } } });
  const { taskQueue, stop: stopBaseline } = await startBaselineWorker(stack);
  const client = stack.api.deps.temporal;
  try {
    // One account per concurrent client, so no model rate limit or concurrency cap is what is measured.
    const accounts: TestAccount[] = [];
    for (let i = 0; i < CONCURRENCY; i++) {
      accounts.push(await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 }));
    }

    const rawStart = (workMs: number) =>
      new WithStartWorkflowOperation<typeof baselineJob>('baselineJob', {
        workflowId: `bench-${crypto.randomUUID()}`,
        taskQueue,
        args: [workMs],
        workflowIdConflictPolicy: 'FAIL',
      });
    const rawSubmit = async () => {
      await client.workflow.executeUpdateWithStart(admitBaseline, { startWorkflowOperation: rawStart(0) });
    };
    const rawEndToEnd = async () => {
      const operation = rawStart(WORK_MS);
      await client.workflow.executeUpdateWithStart(admitBaseline, { startWorkflowOperation: operation });
      await (await operation.workflowHandle()).result();
    };
    const apiSubmit = async (i: number, model = ADMIT_MODEL): Promise<string> => {
      const res = await fetch(`${stack.url}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accounts[i % accounts.length].apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, input: { prompt: `bench ${i}` } }),
      });
      const body = (await res.json()) as { jobId?: string };
      if (res.status !== 201 || !body.jobId) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
      return body.jobId;
    };
    const apiEndToEnd = async (i: number) => {
      const jobId = await apiSubmit(i, RUN_MODEL);
      const apiKey = accounts[i % accounts.length].apiKey;
      for (;;) {
        const res = await fetch(`${stack.url}/v1/jobs/${jobId}`, { headers: { authorization: `Bearer ${apiKey}`, prefer: 'wait=30' } });
        const job = (await res.json()) as { status: string };
        if (job.status === 'completed') return;
        if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`bench job ${jobId} ${job.status}`);
      }
    };

    for (let i = 0; i < 20; i++) await Promise.all([rawSubmit(), apiSubmit(i)]); // warm-up: JIT, pools, caches

    const half = SUBMITS / 2;
    let rawMs = 0;
    let apiMs = 0;
    rawMs += await runConcurrently(half, CONCURRENCY, () => rawSubmit());
    apiMs += await runConcurrently(half, CONCURRENCY, (i) => apiSubmit(i).then(() => undefined));
    rawMs += await runConcurrently(half, CONCURRENCY, () => rawSubmit());
    apiMs += await runConcurrently(half, CONCURRENCY, (i) => apiSubmit(half + i).then(() => undefined));
    const rawRate = SUBMITS / (rawMs / 1000);
    const apiRate = SUBMITS / (apiMs / 1000);

    const rawLatency: number[] = [];
    const apiLatency: number[] = [];
    for (let i = 0; i < LATENCY_ROUNDS; i++) {
      rawLatency.push((await timed(rawSubmit))[1]);
      apiLatency.push((await timed(() => apiSubmit(i)))[1]);
    }
    const rawE2e: number[] = [];
    const apiE2e: number[] = [];
    for (let i = 0; i < E2E_ROUNDS; i++) {
      rawE2e.push((await timed(rawEndToEnd))[1]);
      apiE2e.push((await timed(() => apiEndToEnd(i)))[1]);
    }

    return { apiRate, rawRate, apiLatency, rawLatency, apiE2e, rawE2e };
  } finally {
    await stopBaseline();
    await stack.stop();
  }
}
