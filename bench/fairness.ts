/**
 * Fair share between accounts on one busy provider (docs/operators.md, "Fair share and priority"): pixelforge with 2
 * slots, each job about 1 s. Tenant A submits 300 jobs, then tenant B submits 10. Three runs, each with its own
 * API, workflow worker and provider worker processes on task queues of their own:
 *  - first in, first out: jobs start without fairness keys (the tuning value jobs.fairness false), as before fair share;
 *  - fair share, both accounts on the standard plan (weight 1 each);
 *  - weighted: A on the business plan (weight 3), B on standard (weight 1), B submitting 20 jobs.
 * Measured from the jobs' `started_at` in PostgreSQL: how long after B's submit B's last job started; the starts and
 * slot time of each account between B's first and last start (while both have jobs waiting), as Jain's fairness
 * index of their weight-normalised shares and as the ratio A:B.
 */
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { tuningFile } from '../test/support/stack';
import { sleep, startApiProcess, startProviderWorkerProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { printTable, type Headline } from './stats';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const PROVIDER = 'pixelforge';
const SLOTS = 2;
/** 30 s nominal × 1/30: about 1 s at the provider per job. */
const TIME_SCALE = 1 / 30;
const A_JOBS = 300;
const B_JOBS = 10;
const B_JOBS_WEIGHTED = 20;
const SUBMIT_CONCURRENCY = 8;

interface Run {
  name: string;
  fairness: boolean;
  plans: { a: string; b: string };
  bJobs: number;
}

interface Shares {
  starts: { a: number; b: number };
  slotSeconds: { a: number; b: number };
}

interface RunResult {
  run: Run;
  /** From B's first submit to B's last job starting. */
  bLastStartS: number;
  /** From B's first submit to B's first job starting. */
  bFirstStartS: number;
  /** A's jobs not yet started when B submitted. */
  aBacklogAtB: number;
  windowS: number;
  shares: Shares;
}

async function submit(url: string, account: TestAccount, n: number): Promise<string> {
  const res = await fetch(`${url}/v1/jobs/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, input: { prompt: `fair share ${n}` } }),
  });
  const body = (await res.json()) as { jobId?: string };
  if (res.status !== 201 || !body.jobId) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
  return body.jobId;
}

async function submitMany(url: string, account: TestAccount, count: number, concurrency: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) ids.push(await submit(url, account, next++));
    }),
  );
  return ids;
}

/** A job's time at the provider within [from, to], in seconds. */
function overlapS(job: { startedAt: Date | null; completedAt: Date | null }, from: number, to: number): number {
  if (!job.startedAt) return 0;
  const start = Math.max(job.startedAt.getTime(), from);
  const end = Math.min(job.completedAt?.getTime() ?? to, to);
  return Math.max(0, end - start) / 1000;
}

async function measure(run: Run, prisma: PrismaClient): Promise<RunResult> {
  const queues = `bench-fair-${run.name}-${Date.now()}`;
  const env = {
    TEMPORAL_TASK_QUEUE_PREFIX: `${queues}-`,
    PROVIDER_CONCURRENCY: `${PROVIDER}=${SLOTS}`,
    GENMEDIA_TEST_TUNING: tuningFile({ providers: { timeScale: TIME_SCALE }, jobs: { fairness: run.fairness } }),
  };
  const account = (plan: string) => createTestAccount(prisma, { plan, creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 10_000 });
  const [a, b, warm] = [await account(run.plans.a), await account(run.plans.b), await account('standard')];
  const workflowWorker = startWorkflowWorkerProcess({ env });
  const providerWorker = startProviderWorkerProcess(PROVIDER, { env });
  const api = await startApiProcess({ env });
  try {
    // Warm-up: both workers polling, code paths compiled.
    await until(() => submit(api.url, warm, 0).then(() => true, () => false), 120_000, 1_000);
    await until(async () => (await prisma.job.count({ where: { accountId: warm.accountId, status: 'completed' } })) > 0, 120_000, 200);

    const aJobs = await submitMany(api.url, a, A_JOBS, SUBMIT_CONCURRENCY);
    const bSubmittedAt = Date.now();
    const aBacklogAtB = A_JOBS - (await prisma.job.count({ where: { id: { in: aJobs }, startedAt: { not: null } } }));
    const bJobs = await submitMany(api.url, b, run.bJobs, run.bJobs);
    await until(async () => (await prisma.job.count({ where: { id: { in: bJobs }, startedAt: { not: null } } })) === bJobs.length, 600_000, 250);

    const bStarts = (await prisma.job.findMany({ where: { id: { in: bJobs } }, select: { startedAt: true } })).map((j) => j.startedAt!.getTime());
    const [firstB, lastB] = [Math.min(...bStarts), Math.max(...bStarts)];
    // The jobs running in the window end within a few seconds; their slot time counts up to their end.
    await until(async () => (await prisma.job.count({ where: { id: { in: [...aJobs, ...bJobs] }, startedAt: { lte: new Date(lastB) }, completedAt: null } })) === 0, 60_000, 250);
    const jobs = await prisma.job.findMany({ where: { id: { in: [...aJobs, ...bJobs] } }, select: { accountId: true, startedAt: true, completedAt: true } });
    const inWindow = (t: Date | null) => t !== null && t.getTime() > firstB && t.getTime() <= lastB;
    const of = (tenant: TestAccount) => jobs.filter((j) => j.accountId === tenant.accountId);
    return {
      run,
      bLastStartS: (lastB - bSubmittedAt) / 1000,
      bFirstStartS: (firstB - bSubmittedAt) / 1000,
      aBacklogAtB,
      windowS: (lastB - firstB) / 1000,
      shares: {
        starts: { a: of(a).filter((j) => inWindow(j.startedAt)).length, b: of(b).filter((j) => inWindow(j.startedAt)).length },
        slotSeconds: {
          a: of(a).reduce((sum, j) => sum + overlapS(j, firstB, lastB), 0),
          b: of(b).reduce((sum, j) => sum + overlapS(j, firstB, lastB), 0),
        },
      },
    };
  } finally {
    await Promise.all([stopProcess(api.child), stopProcess(workflowWorker), stopProcess(providerWorker)]);
  }
}

/** Jain's fairness index of the shares, each divided by its weight: 1 when every account gets its weighted share. */
export function jainIndex(shares: number[], weights: number[]): number {
  const x = shares.map((s, i) => s / weights[i]);
  const sum = x.reduce((s, v) => s + v, 0);
  const squares = x.reduce((s, v) => s + v * v, 0);
  return squares === 0 ? 0 : (sum * sum) / (x.length * squares);
}

const ratio = (shares: { a: number; b: number }) => (shares.b === 0 ? Infinity : shares.a / shares.b);

export async function fairnessBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const runs: Run[] = [
    { name: 'fifo', fairness: false, plans: { a: 'standard', b: 'standard' }, bJobs: B_JOBS },
    { name: 'fair', fairness: true, plans: { a: 'standard', b: 'standard' }, bJobs: B_JOBS },
    { name: 'weighted', fairness: true, plans: { a: 'business', b: 'standard' }, bJobs: B_JOBS_WEIGHTED },
  ];
  const results: RunResult[] = [];
  const versions = await prisma.modelVersion.findMany({ where: { model: { slug: MODEL } } });
  try {
    // The model's per-account request limit (60 a minute) would refuse A's burst of 300; set back afterwards.
    await prisma.modelVersion.updateMany({ where: { model: { slug: MODEL } }, data: { requestsPerMinute: 100_000, requestsPerDay: 1_000_000 } });
    for (const run of runs) {
      results.push(await measure(run, prisma));
      await sleep(2_000);
    }
  } finally {
    for (const v of versions) {
      await prisma.modelVersion.update({
        where: { modelId_versionId: { modelId: v.modelId, versionId: v.versionId } },
        data: { requestsPerMinute: v.requestsPerMinute, requestsPerDay: v.requestsPerDay },
      });
    }
    await prisma.$disconnect();
  }
  const [fifo, fair, weighted] = results;

  console.log(`fairness: ${PROVIDER} with ${SLOTS} slots, ~1 s a job; A submits ${A_JOBS} jobs, then B submits ${B_JOBS} (${B_JOBS_WEIGHTED} in the weighted run)`);
  console.log("shares are counted between B's first and last start, while both accounts have jobs waiting");
  printTable([
    ['run', 'plans A / B', "A's backlog at B's submit", "B's first start", "B's last start", 'window', 'starts A:B', 'slot time A:B', "Jain's index (starts, weighted)"],
    ...results.map((r) => {
      const weights = r.run.plans.a === 'business' ? [3, 1] : [1, 1];
      return [
        r.run.fairness ? r.run.name : 'FIFO (no fairness keys)',
        `${r.run.plans.a} / ${r.run.plans.b}`,
        String(r.aBacklogAtB),
        `${r.bFirstStartS.toFixed(1)} s`,
        `${r.bLastStartS.toFixed(1)} s`,
        `${r.windowS.toFixed(1)} s`,
        `${r.shares.starts.a}:${r.shares.starts.b} (${ratio(r.shares.starts).toFixed(2)})`,
        `${r.shares.slotSeconds.a.toFixed(1)}:${r.shares.slotSeconds.b.toFixed(1)} s (${ratio(r.shares.slotSeconds).toFixed(2)})`,
        jainIndex([r.shares.starts.a, r.shares.starts.b], weights).toFixed(3),
      ];
    }),
  ]);

  const equalJain = jainIndex([fair.shares.starts.a, fair.shares.starts.b], [1, 1]);
  const weightedRatio = ratio(weighted.shares.starts);
  return [
    {
      target: "B's last job starts within 15 s of B's submit (FIFO about 150 s)",
      measured: `${fair.bLastStartS.toFixed(1)} s (FIFO ${fifo.bLastStartS.toFixed(1)} s, ${(fifo.bLastStartS / fair.bLastStartS).toFixed(1)}x sooner)`,
      met: fair.bLastStartS <= 15,
    },
    {
      target: "Jain's fairness index of A's and B's starts, equal weights (at least 0.9)",
      measured: `${equalJain.toFixed(3)} (FIFO ${jainIndex([fifo.shares.starts.a, fifo.shares.starts.b], [1, 1]).toFixed(3)})`,
      met: equalJain >= 0.9,
    },
    {
      target: 'starts A:B with weights 3:1 (business vs standard) within 10% of 3 (2.7-3.3)',
      measured: `${weighted.shares.starts.a}:${weighted.shares.starts.b} = ${weightedRatio.toFixed(2)}`,
      met: Math.abs(weightedRatio - 3) <= 0.3,
    },
  ];
}
