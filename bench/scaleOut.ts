/**
 * Scale-out and the cost of a job, every service in its own process (API, workflow worker, provider workers):
 *  - a provider-bound load: pixelforge jobs that each spend about 3 s at the provider, 2 at a time per provider
 *    worker process; the same jobs with one provider worker process, then with two (target: at least 1.8×);
 *  - CPU per job of each process kind, and of Temporal and PostgreSQL, from /proc (utime + stime) over the second run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createPrisma } from '../src/db/prisma';
import { loadConfig, REPO_ROOT } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { tuningFile } from '../test/support/stack';
import { sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { headline, printTable, type Headline } from './stats';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const JOBS = 24;
const ACCOUNTS = 6;
/** 30 s nominal × 0.1: about 3 s at the provider per job. */
const TIME_SCALE = 0.1;
const PER_PROCESS_CONCURRENCY = 2;
const CLOCK_TICKS_PER_SECOND = 100;

function startProviderWorkerProcess(providerId: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join('src', 'workers', 'main.ts'), '--provider', providerId], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'error',
      METRICS_PORT: '0',
      PROVIDER_CONCURRENCY: `${providerId}=${PER_PROCESS_CONCURRENCY}`,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/**
 * CPU seconds a process has used (user + system), with those of its children that have exited: PostgreSQL's
 * backends come and go, and their time moves to the postmaster when they do. From /proc/<pid>/stat.
 */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0; // gone
  }
}

/** Pids whose command line matches, e.g. every PostgreSQL backend or the Temporal server. */
function pidsMatching(pattern: RegExp): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return pattern.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
      } catch {
        return false;
      }
    })
    .map(Number);
}

type CpuGroups = Record<string, () => number[]>;

function cpuOf(groups: CpuGroups): Record<string, number> {
  return Object.fromEntries(Object.entries(groups).map(([name, pids]) => [name, pids().reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));
}

export async function scaleOutBench(): Promise<Headline[]> {
  // Every process this bench starts inherits the built-in provider's time scale from this file.
  process.env.GENMEDIA_TEST_TUNING = tuningFile({ providers: { timeScale: TIME_SCALE } });
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const workflowWorker = startWorkflowWorkerProcess();
  const api = await startApiProcess();
  const providerWorkers: ChildProcess[] = [startProviderWorkerProcess('pixelforge')];
  const groups: CpuGroups = {
    API: () => [api.child.pid!],
    'workflow worker': () => [workflowWorker.pid!],
    'provider workers': () => providerWorkers.map((w) => w.pid!),
    'Temporal (dev server)': () => pidsMatching(/temporal server start-dev|temporal-server|\/server --config-file/),
    PostgreSQL: () => pidsMatching(/(^|\/)postgres[ :]/),
  };
  try {
    const accounts: TestAccount[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 }));
    let submitted = 0;
    const submit = async (): Promise<string> => {
      const account = accounts[submitted++ % ACCOUNTS];
      const res = await fetch(`${api.url}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, input: { prompt: `scale-out ${submitted}` } }),
      });
      const body = (await res.json()) as { jobId?: string };
      if (res.status !== 201 || !body.jobId) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
      return body.jobId;
    };
    /** Wall time from the first submit to the last completion of `JOBS` jobs submitted at once. */
    const run = async (): Promise<number> => {
      const started = Date.now();
      const jobIds = await Promise.all(Array.from({ length: JOBS }, () => submit()));
      await until(async () => (await prisma.job.count({ where: { id: { in: jobIds }, status: 'completed' } })) === JOBS, 600_000, 200);
      const last = await prisma.job.aggregate({ where: { id: { in: jobIds } }, _max: { completedAt: true } });
      return last._max.completedAt!.getTime() - started;
    };
    // Warm-up: both processes ready, code paths compiled.
    await until(() => submit().then(() => true, () => false), 120_000, 1_000);
    await sleep(5_000);

    const oneMs = await run();
    providerWorkers.push(startProviderWorkerProcess('pixelforge'));
    await sleep(8_000); // the second process starts and polls
    const before = cpuOf(groups);
    const twoMs = await run();
    const after = cpuOf(groups);

    const rate = (ms: number) => JOBS / (ms / 1000);
    console.log(`scale-out: ${JOBS} ${MODEL} jobs at once, ~3 s each at the provider, ${PER_PROCESS_CONCURRENCY} at a time per provider worker process`);
    printTable([
      ['provider worker processes', 'wall time', 'throughput', 'vs one'],
      ['1', `${(oneMs / 1000).toFixed(1)} s`, `${rate(oneMs).toFixed(2)} jobs/s`, '1.00x'],
      ['2', `${(twoMs / 1000).toFixed(1)} s`, `${rate(twoMs).toFixed(2)} jobs/s`, `${(rate(twoMs) / rate(oneMs)).toFixed(2)}x`],
    ]);
    console.log(`cost per job: CPU time of each process during the second run (${JOBS} jobs), submit to completed`);
    printTable([
      ['process', 'CPU per job'],
      ...Object.keys(groups).map((name) => [name, `${(((after[name] - before[name]) / JOBS) * 1000).toFixed(1)} ms`]),
    ]);
    return [headline('two provider worker processes vs one, provider-bound', rate(twoMs) / rate(oneMs), 1.8, 'at least')];
  } finally {
    await Promise.all([...providerWorkers.map((w) => stopProcess(w)), stopProcess(api.child), stopProcess(workflowWorker)]);
    await prisma.$disconnect();
  }
}
