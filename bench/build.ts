/**
 * The production build (`npm run build`, plain node on dist/) against tsx on the sources, side by side in one run:
 *  - start to ready of the API (spawn to the first 200 of /readyz) and of the workflow worker (spawn to its poller
 *    on the task queue, seen in DescribeTaskQueue by the worker's identity, pid@host), STARTS of each, interleaved,
 *    after one uncounted start each that warms the disk cache and tsx's own: tsx, built, and built with Node's
 *    compile cache as the image runs it (the uncounted start fills it);
 *  - RSS of the API and of the workflow worker idle (ready, 10 jobs open, as the memory benchmark measures idle)
 *    and with 1,000 jobs open (the memory benchmark's open jobs), each variant on task queues of its own so another's
 *    open workflows never reach it: tsx and built, with glibc's default malloc arenas and capped at 2 as the image
 *    runs them (MALLOC_ARENA_MAX and, built, the compile cache; see the Dockerfile).
 * Targets: the workflow worker under 330 MB with 1,000 jobs open as the image runs it; each start at least twice as
 * fast built, as the image runs it.
 */
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../src/config';
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { createJobOpener } from './openJobs';
import { mb, medianRss, type Runtime, sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { headline, printTable, type Headline } from './stats';
import { isPolling } from '../test/support/pollers';

const { ensureBuilt } = require('../scripts/lib/build') as { ensureBuilt: () => Promise<boolean> };

const STARTS = 5;
const JOBS = 1_000;
const WORKER_TARGET_MB = 330;
/**
 * Node's compile cache in a directory of this run, as the image fills one at build time (NODE_COMPILE_CACHE, see
 * the Dockerfile): the uncounted first start writes it, the counted ones read it.
 */
const COMPILE_CACHE = { NODE_COMPILE_CACHE: path.join(os.tmpdir(), `genmedia-bench-compile-cache-${randomUUID().slice(0, 8)}`) };

/** A way of running the processes: from the sources or the build, with the environment this variant sets. */
interface Variant {
  runtime: Runtime;
  env: NodeJS.ProcessEnv;
}
const START_VARIANTS = {
  tsx: { runtime: 'tsx', env: { NODE_COMPILE_CACHE: undefined } },
  built: { runtime: 'built', env: { NODE_COMPILE_CACHE: undefined } },
  builtCompileCache: { runtime: 'built', env: COMPILE_CACHE },
} satisfies Record<string, Variant>;
type StartVariantName = keyof typeof START_VARIANTS;

/**
 * tsx and built with glibc's default malloc arenas, then both with two arenas as the image runs them: after a burst
 * the default arenas hold a varying amount of freed memory that would hide the build's own difference. The built
 * process with two arenas also reads the compile cache, as the image runs it.
 */
const MEMORY_VARIANTS = {
  tsx: { runtime: 'tsx', env: { MALLOC_ARENA_MAX: undefined } },
  built: { runtime: 'built', env: { MALLOC_ARENA_MAX: undefined } },
  tsxTwoArenas: { runtime: 'tsx', env: { MALLOC_ARENA_MAX: '2' } },
  builtTwoArenas: { runtime: 'built', env: { MALLOC_ARENA_MAX: '2', ...COMPILE_CACHE } },
} satisfies Record<string, Variant>;

/** Task queues of one runtime's processes: a jobs queue and provider queues no provider worker serves. */
function taskQueuesFor(runtime: Runtime): NodeJS.ProcessEnv {
  const run = randomUUID().slice(0, 8);
  return { TEMPORAL_TASK_QUEUE_PREFIX: `bench-${runtime}-${run}-` };
}

interface StartedWorker {
  child: ChildProcess;
  startToReadyMs: number;
}

async function startPollingWorker(runtime: Runtime, env: NodeJS.ProcessEnv, connection: Connection, config: Config): Promise<StartedWorker> {
  const startedAt = performance.now();
  const child = startWorkflowWorkerProcess({ runtime, env });
  try {
    await until(async () => {
      if (child.exitCode !== null) throw new Error(`the ${runtime} workflow worker exited with ${child.exitCode}`);
      return isPolling(connection, config.temporal.namespace, `${env.TEMPORAL_TASK_QUEUE_PREFIX}jobs`, 'WORKFLOW', child.pid!);
    }, 120_000, 25);
  } catch (err) {
    await stopProcess(child);
    throw err;
  }
  return { child, startToReadyMs: performance.now() - startedAt };
}

interface StartTimes {
  api: number[];
  worker: number[];
}

/** Starts and stops each process of each variant in turn, so drift in the machine's load touches all alike. */
async function measureStarts(connection: Connection, config: Config): Promise<Record<StartVariantName, StartTimes>> {
  const names = Object.keys(START_VARIANTS) as StartVariantName[];
  const times = Object.fromEntries(names.map((name) => [name, { api: [], worker: [] }])) as unknown as Record<StartVariantName, StartTimes>;
  const queues = Object.fromEntries(names.map((name) => [name, taskQueuesFor(START_VARIANTS[name].runtime)]));
  for (let round = 0; round <= STARTS; round++) {
    for (const name of names) {
      const { runtime, env: variantEnv } = START_VARIANTS[name];
      const env = { ...queues[name], ...variantEnv };
      const api = await startApiProcess({ runtime, env });
      await stopProcess(api.child);
      const worker = await startPollingWorker(runtime, env, connection, config);
      await stopProcess(worker.child);
      // Round 0 warms up (and fills the compile cache) and is not counted.
      if (round === 0) continue;
      times[name].api.push(api.startToReadyMs);
      times[name].worker.push(worker.startToReadyMs);
    }
  }
  return times;
}

interface Memory {
  apiIdle: number;
  apiInFlight: number;
  workerIdle: number;
  workerOpen: number;
  open: number;
}

/** One variant's API and workflow worker, idle and then with JOBS jobs open; RSS in KB. */
async function measureMemory({ runtime, env: variantEnv }: Variant, prisma: PrismaClient, connection: Connection, config: Config): Promise<Memory> {
  const env = { ...taskQueuesFor(runtime), ...variantEnv };
  const worker = await startPollingWorker(runtime, env, connection, config);
  const api = await startApiProcess({ runtime, env });
  try {
    const opener = await createJobOpener(prisma, api.url);
    await opener.openUpTo(10);
    await sleep(2_000);
    const workerIdle = await medianRss(worker.child);
    const apiIdle = await medianRss(api.child);
    await opener.openUpTo(JOBS);
    await sleep(3_000);
    const workerOpen = await medianRss(worker.child);
    const apiInFlight = await medianRss(api.child);
    return { apiIdle, apiInFlight, workerIdle, workerOpen, open: await opener.stillOpen() };
  } finally {
    await stopProcess(api.child);
    await stopProcess(worker.child);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const ratio = (tsx: number, built: number) => `${(tsx / built).toFixed(2)}x`;

export async function buildBench(): Promise<Headline[]> {
  await ensureBuilt();
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const connection = await Connection.connect({ address: config.temporal.address });
  try {
    const starts = await measureStarts(connection, config);
    const memory = {} as Record<keyof typeof MEMORY_VARIANTS, Memory>;
    for (const [name, variant] of Object.entries(MEMORY_VARIANTS)) {
      memory[name as keyof typeof MEMORY_VARIANTS] = await measureMemory(variant, prisma, connection, config);
    }

    const startRow = (label: string, pick: (t: StartTimes) => number[]) => {
      const [tsx, built, cached] = [median(pick(starts.tsx)), median(pick(starts.built)), median(pick(starts.builtCompileCache))];
      return [label, seconds(tsx), seconds(built), ratio(tsx, built), '', seconds(cached), ratio(tsx, cached)];
    };
    const memoryRow = (label: string, pick: (m: Memory) => number) => {
      const [tsx, built, tsx2, built2] = [pick(memory.tsx), pick(memory.built), pick(memory.tsxTwoArenas), pick(memory.builtTwoArenas)];
      return [label, mb(tsx), mb(built), ratio(tsx, built), mb(tsx2), mb(built2), ratio(tsx2, built2)];
    };
    console.log(`build: tsx against the build (plain node on dist/); start to ready, median of ${STARTS} starts each; RSS, median of 5 samples`);
    console.log('  (the last three columns: as the image and npm run cluster run them: MALLOC_ARENA_MAX=2, and the built process with');
    console.log('  Node\'s compile cache; its starts are compared with the tsx column)');
    printTable([
      ['', 'tsx', 'built', 'tsx / built', 'tsx, 2 arenas', 'built, 2 arenas', 'tsx / built'],
      startRow('API start to ready (/readyz)', (t) => t.api),
      startRow('workflow worker start to ready (polling)', (t) => t.worker),
      memoryRow('API RSS, idle', (m) => m.apiIdle),
      memoryRow(`API RSS, ${JOBS} jobs in flight`, (m) => m.apiInFlight),
      memoryRow('workflow worker RSS, idle', (m) => m.workerIdle),
      memoryRow(`workflow worker RSS, ${JOBS} jobs open`, (m) => m.workerOpen),
    ]);
    console.log(`  jobs still open at the end: ${Object.entries(memory).map(([name, m]) => `${name} ${m.open}`).join(', ')}`);
    const everyStart = Object.entries(starts).map(([name, t]) => `${name} API ${t.api.map(Math.round).join(' ')}, worker ${t.worker.map(Math.round).join(' ')}`);
    console.log(`  start to ready, every start (ms): ${everyStart.join('; ')}`);

    const underTarget = (kb: number) => kb < WORKER_TARGET_MB * 1024;
    return [
      { target: `built workflow worker RSS, ${memory.builtTwoArenas.open} jobs open, as the image runs it (under ${WORKER_TARGET_MB} MB)`, measured: mb(memory.builtTwoArenas.workerOpen), met: underTarget(memory.builtTwoArenas.workerOpen) },
      { target: `the same with glibc's default arenas (under ${WORKER_TARGET_MB} MB)`, measured: mb(memory.built.workerOpen), met: underTarget(memory.built.workerOpen) },
      headline('API start to ready, tsx / built as the image runs it', median(starts.tsx.api) / median(starts.builtCompileCache.api), 2, 'at least'),
      headline('workflow worker start to ready, tsx / built as the image runs it', median(starts.tsx.worker) / median(starts.builtCompileCache.worker), 2, 'at least'),
      headline('API start to ready, tsx / built without the compile cache', median(starts.tsx.api) / median(starts.built.api), 2, 'at least'),
    ];
  } finally {
    await connection.close();
    await prisma.$disconnect();
    rmSync(COMPILE_CACHE.NODE_COMPILE_CACHE, { recursive: true, force: true });
  }
}
