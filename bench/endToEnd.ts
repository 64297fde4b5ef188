/**
 * `npm run bench e2e`: submit to completed from outside, under load, against a bare Temporal workflow on the same
 * server, side by side in one run.
 *  - genmedia: JOBS forge-pro jobs (a real 1024×1024 PNG rendered by the built-in provider, stored in MinIO, signed
 *    with Content Credentials) at concurrency CONCURRENCY, each `POST /v1/jobs/submit` with `Prefer: wait` (what a
 *    client uses to learn the end without polling), the provider's nominal time scaled to about WORK_MS; the same
 *    number of jobs of an account with provenance switched off, to show what signing costs;
 *  - baseline: as many Update-with-Start of a workflow admitted by one trivial activity that then works WORK_MS in a
 *    second (bench/baseline/), waited for through the workflow's result, at the same concurrency.
 * The three run in alternating halves, so drift on a shared machine falls on all alike. Then the CPU each part of the
 * stack used per job in each kind's halves (bench/stackCpu.ts) and the PostgreSQL statements per job; then the breakdown: the
 * render, the file check, the signing and the store of one output timed alone in this process, and the Temporal
 * history of a few jobs (workflow tasks, the generation activity's wait for a slot and its run, the completion).
 */
import crypto from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WithStartWorkflowOperation } from '@temporalio/client';
import { jobWorkflowId } from '../src/contracts/workflows/job';
import { createOutputMarker } from '../src/provenance/outputMarker';
import { createFileSigner } from '../src/provenance/signer';
import { describeOutputFile } from '../src/providers/outputs';
import { renderTextToImage } from '../src/providers/local/textToImage';
import { post } from '../test/support/api';
import { createTestAccount } from '../test/support/accounts';
import { startTestStack } from '../test/support/stack';
import { admitBaseline, type baselineJob } from './baseline/workflows';
import { startBaselineWorker } from './baseline/worker';
import { makeTestChain } from './provenanceSigning';
import { countingQueries, totalQueries, type QueryCounts } from './queryCount';
import { addCpu, cpuBetween, stackCpu, type CpuSnapshot } from './stackCpu';
import { fmt, headline, printTable, runConcurrently, summarize, timed, type Headline } from './stats';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const JOBS = Number(process.env.BENCH_E2E_JOBS ?? 100);
const CONCURRENCY = 8;
const WORK_MS = 30;
/** The built-in provider's nominal 30 s per image × this: about WORK_MS, or the render time when longer. */
const TIME_SCALE = WORK_MS / 30_000;
const HISTORIES = 5;
const COMPONENT_ROUNDS = 10;

export async function endToEndBench(): Promise<Headline[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-bench-e2e-'));
  try {
    const chain = makeTestChain(dir);
    writeFileSync(path.join(dir, 'chain.pem'), chain.chainPem);
    writeFileSync(path.join(dir, 'signer.key'), chain.keyPem);
    const stack = await startTestStack({
      providers: ['pixelforge'],
      env: {
        LOG_LEVEL: 'error',
        PROVENANCE_CERT_CHAIN: path.join(dir, 'chain.pem'),
        PROVENANCE_PRIVATE_KEY: path.join(dir, 'signer.key'),
      },
      tuning: { providers: { timeScale: TIME_SCALE } },
    });
    const { taskQueue, stop: stopBaseline } = await startBaselineWorker(stack);
    const client = stack.api.deps.temporal;
    const raw: number[] = [];
    const signed: number[] = [];
    const unsigned: number[] = [];
    type Run = { workflowId: string; sentAt: number; answeredAt: number };
    const rawRuns: Run[] = [];
    const signedRuns: Run[] = [];
    try {
      // One account per concurrent client and kind, so no account's concurrency cap or rate limit is what is measured.
      const account = () => createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 });
      const signers = await Promise.all(Array.from({ length: CONCURRENCY }, account));
      const nonSigners = await Promise.all(Array.from({ length: CONCURRENCY }, account));
      await stack.prisma.account.updateMany({ where: { id: { in: nonSigners.map((a) => a.accountId) } }, data: { provenanceEnabled: false } });

      const rawEndToEnd = async (): Promise<Run> => {
        const sentAt = Date.now();
        const workflowId = `bench-${crypto.randomUUID()}`;
        const operation = new WithStartWorkflowOperation<typeof baselineJob>('baselineJob', {
          workflowId,
          taskQueue,
          args: [WORK_MS],
          workflowIdConflictPolicy: 'FAIL',
        });
        await client.workflow.executeUpdateWithStart(admitBaseline, { startWorkflowOperation: operation });
        await (await operation.workflowHandle()).result();
        return { workflowId, sentAt, answeredAt: Date.now() };
      };
      const jobEndToEnd = async (apiKey: string, n: number): Promise<Run> => {
        const sentAt = Date.now();
        const res = await post(`${stack.url}/v1/jobs/submit`, apiKey, { model: MODEL, input: { prompt: `bench lighthouse ${n}`, size: 'square_hd' } }, { Prefer: 'wait=60' });
        if (res.status !== 201 || res.body.status !== 'completed') throw new Error(`job ${n} ended ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        return { workflowId: jobWorkflowId(res.body.jobId as string), sentAt, answeredAt: Date.now() };
      };
      const cpu: Record<'raw' | 'signed' | 'unsigned', CpuSnapshot> = { raw: new Map(), signed: new Map(), unsigned: new Map() };
      const wallMs = new Map<CpuSnapshot, number>();
      const queries = new Map<CpuSnapshot, QueryCounts>(Object.values(cpu).map((kind) => [kind, new Map()]));
      const phase = async (samples: number[], task: (i: number) => Promise<unknown>, offset: number, kind: CpuSnapshot) => {
        const before = stackCpu();
        const ms = await countingQueries(queries.get(kind)!, () =>
          runConcurrently(JOBS / 2, CONCURRENCY, async (i) => {
            samples.push((await timed(() => task(offset + i)))[1]);
          }),
        );
        wallMs.set(kind, (wallMs.get(kind) ?? 0) + ms);
        addCpu(kind, cpuBetween(before, stackCpu()));
      };

      // Warm-up: JIT, pools, the render's fonts, the signer.
      for (let i = 0; i < CONCURRENCY; i++) await Promise.all([rawEndToEnd(), jobEndToEnd(signers[i].apiKey, -1 - i), jobEndToEnd(nonSigners[i].apiKey, -100 - i)]);
      for (const offset of [0, JOBS / 2]) {
        await phase(raw, async () => rawRuns.push(await rawEndToEnd()), offset, cpu.raw);
        await phase(signed, async (i) => signedRuns.push(await jobEndToEnd(signers[i % CONCURRENCY].apiKey, i)), offset, cpu.signed);
        await phase(unsigned, (i) => jobEndToEnd(nonSigners[i % CONCURRENCY].apiKey, i), offset, cpu.unsigned);
      }

      const rawS = summarize(raw);
      const signedS = summarize(signed);
      const unsignedS = summarize(unsigned);
      console.log(`end to end: ${JOBS} jobs each at c=${CONCURRENCY}, ~${WORK_MS} ms of work, submit to completed, in alternating halves`);
      printTable([
        ['what', 'p50', 'p95', 'max', 'p50 vs bare'],
        ['bare Temporal workflow (admit, work 30 ms)', fmt(rawS.p50), fmt(rawS.p95), fmt(rawS.max), '1.00x'],
        ['genmedia forge-pro, signed', fmt(signedS.p50), fmt(signedS.p95), fmt(signedS.max), `${(signedS.p50 / rawS.p50).toFixed(2)}x`],
        ['genmedia forge-pro, provenance off', fmt(unsignedS.p50), fmt(unsignedS.p95), fmt(unsignedS.max), `${(unsignedS.p50 / rawS.p50).toFixed(2)}x`],
      ]);

      printCpu(cpu, wallMs, queries);
      await printHistories(client, 'bare workflow', rawRuns.slice(-HISTORIES));
      await printHistories(client, 'signed genmedia job', signedRuns.slice(-HISTORIES));
      await printComponents(stack, dir, chain);

      return [
        headline(`submit to completed p50 at c=${CONCURRENCY}, signed forge-pro vs bare workflow`, signedS.p50 / rawS.p50, 1.5, 'at most'),
      ];
    } finally {
      await stopBaseline();
      await stack.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU ms per job of each part of the stack in each kind's halves, the parts that used the most first. */
function printCpu(cpu: { raw: CpuSnapshot; signed: CpuSnapshot; unsigned: CpuSnapshot }, wallMs: Map<CpuSnapshot, number>, queries: Map<CpuSnapshot, QueryCounts>): void {
  const kinds = [cpu.raw, cpu.signed, cpu.unsigned];
  const perJob = (snapshot: CpuSnapshot, name: string) => (snapshot.get(name) ?? 0) / JOBS;
  const total = (snapshot: CpuSnapshot) => [...snapshot.values()].reduce((a, b) => a + b, 0) / JOBS;
  const names = [...new Set([...cpu.raw.keys(), ...cpu.signed.keys(), ...cpu.unsigned.keys()])].sort((a, b) => perJob(cpu.signed, b) - perJob(cpu.signed, a));
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  console.log(`\nCPU per job during each kind's halves (/proc, 10 ms ticks; the bench process holds the API, the workers and the clients):`);
  printTable([
    ['part of the stack', 'bare', 'signed', 'provenance off'],
    ...names.filter((n) => perJob(cpu.signed, n) + perJob(cpu.raw, n) + perJob(cpu.unsigned, n) >= 0.05).map((n) => [n, ms(perJob(cpu.raw, n)), ms(perJob(cpu.signed, n)), ms(perJob(cpu.unsigned, n))]),
    ['all', ms(total(cpu.raw)), ms(total(cpu.signed)), ms(total(cpu.unsigned))],
    ['wall time per job (halves / jobs)', ...kinds.map((k) => ms((wallMs.get(k) ?? 0) / JOBS))],
    ['PostgreSQL statements per job (API, workers)', ...kinds.map((k) => (totalQueries(queries.get(k)!) / JOBS).toFixed(1))],
  ]);
  if (process.env.BENCH_E2E_QUERIES !== '1') return;
  console.log(`\nthe signed jobs' statements, per job (BENCH_E2E_QUERIES=1):`);
  for (const [text, n] of [...queries.get(cpu.signed)!].sort((a, b) => b[1] - a[1])) console.log(`  ${(n / JOBS).toFixed(2)}  ${text.slice(0, 160)}`);
}

type Client = Awaited<ReturnType<typeof startTestStack>>['api']['deps']['temporal'];

/**
 * Where a job's time goes in Temporal: each event of its history at its time after the client sent the submit (the
 * API's part before the workflow started is the first line), then the client's answer; the mean over the jobs given.
 */
async function printHistories(client: Client, title: string, runs: { workflowId: string; sentAt: number; answeredAt: number }[]): Promise<void> {
  const rows = new Map<string, number[]>();
  const add = (name: string, ms: number) => rows.set(name, [...(rows.get(name) ?? []), ms]);
  for (const run of runs) {
    const history = await client.workflow.getHandle(run.workflowId).fetchHistory();
    const seen = new Map<string, number>();
    for (const event of history.events ?? []) {
      const at = Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;
      const kind = (Object.keys(event).find((k) => k.endsWith('EventAttributes')) ?? '?').replace('EventAttributes', '');
      const n = (seen.get(kind) ?? 0) + 1;
      seen.set(kind, n);
      add(`${String(event.eventId).padStart(2)} ${kind}${n > 1 ? ` #${n}` : ''}`, at - run.sentAt);
    }
    add('-- answer at the client', run.answeredAt - run.sentAt);
  }
  console.log(`\n${title}: each event's time after the client sent the submit, mean of ${runs.length} runs (activityTaskStarted is written with its completion, at its start time):`);
  printTable([['event', 'at'], ...[...rows.entries()].map(([name, ms]) => [name, fmt(ms.reduce((a, b) => a + b, 0) / ms.length)])]);
}

/** One output's steps timed alone in this process, one at a time: the render, the check of the file, the signing, the store. */
async function printComponents(stack: Awaited<ReturnType<typeof startTestStack>>, dir: string, chain: ReturnType<typeof makeTestChain>): Promise<void> {
  const marker = createOutputMarker({
    signer: createFileSigner({ certificateChainPem: chain.chainPem.toString(), privateKeyPem: chain.keyPem.toString() }),
    generator: { name: 'genmedia', version: 'bench' },
    facts: async () => ({ modelSlug: MODEL, version: 'v2', providerId: 'pixelforge', marked: true }),
  });
  const storage = stack.workers.storage;
  const times: Record<string, number[]> = { render: [], 'check (describeOutputFile)': [], sign: [], 'store (MinIO put)': [] };
  const signal = new AbortController().signal;
  for (let i = 0; i < COMPONENT_ROUNDS + 1; i++) {
    const workDir = await mkdtemp(path.join(dir, 'job-'));
    try {
      const [rendered, render] = await timed(() =>
        renderTextToImage({ prompt: `bench lighthouse ${i}`, input: { prompt: `bench lighthouse ${i}`, size: 'square_hd' }, workDir, signal, onFraction: () => {} }),
      );
      const [file, check] = await timed(() => describeOutputFile(rendered[0]!.path, 'image/png', signal));
      const [marked, sign] = await timed(() => marker.mark({ jobId: `bench-${i}` }, [file], workDir));
      const [, store] = await timed(() => storage.putFile(storage.outputsBucket, `bench-e2e/${i}.png`, marked[0]!.path, 'image/png'));
      if (i === 0) continue; // uncounted: first use
      times.render.push(render);
      times['check (describeOutputFile)'].push(check);
      times.sign.push(sign);
      times['store (MinIO put)'].push(store);
      if (i === 1) console.log(`\none output: ${marked[0]!.sizeBytes} bytes signed`);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  }
  console.log(`one output's steps alone, ${COMPONENT_ROUNDS} each after one uncounted:`);
  printTable([['step', 'p50', 'p95'], ...Object.entries(times).map(([name, xs]) => [name, fmt(summarize(xs).p50), fmt(summarize(xs).p95)])]);
}
