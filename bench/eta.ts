/**
 * How well a submit's promised completion holds (docs/eta.md), side by side in one run: the estimate as it was before
 * the line was counted (the version's processingSeconds from the admission, tuning jobs.lineEstimates false) and the
 * line's estimate, on the same scenarios, each with its own API, workflow worker and provider worker processes on task
 * queues of their own. pixelforge with 2 slots, forge-pro jobs of about 1 s (30 s nominal × 1/30):
 *  - flood: 200 jobs at once;
 *  - fair share: account A (standard) floods 120 jobs while account B (business, weight 3) submits one every 2 s;
 *  - mix: 120 jobs, one in four asking for 4 images (four times the work) in place of 1.
 * Per scenario and estimate, from the jobs' rows: the share completed by the promised 90th percentile (before, the one
 * figure promised), the median of |actual − promised| / actual time from admission to completion, and the worst
 * actual / promised. And the submit throughput with the line's estimate against without it, 200 submits each.
 */
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { tuningFile } from '../test/support/stack';
import { sleep, startApiProcess, startProviderWorkerProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { percentile, printTable, runConcurrently, type Headline } from './stats';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const PROVIDER = 'pixelforge';
const SLOTS = 2;
const TIME_SCALE = 1 / 30;
const SUBMIT_CONCURRENCY = 8;
const THROUGHPUT_SUBMITS = 200;

type Estimate = 'before' | 'line';

interface Submission {
  account: TestAccount;
  input: Record<string, unknown>;
  /** Milliseconds after the scenario's start to submit it. */
  atMs: number;
}

interface Scenario {
  name: string;
  describe: string;
  submissions(accounts: { a: TestAccount; b: TestAccount }): Submission[];
}

const prompt = (i: number) => ({ prompt: `eta ${i}` });

const SCENARIOS: Scenario[] = [
  {
    name: 'flood',
    describe: '200 jobs at once',
    submissions: ({ a }) => Array.from({ length: 200 }, (_, i) => ({ account: a, input: prompt(i), atMs: 0 })),
  },
  {
    name: 'fair share',
    describe: 'A floods 120, B (weight 3) one every 2 s',
    submissions: ({ a, b }) => [
      ...Array.from({ length: 120 }, (_, i) => ({ account: a, input: prompt(i), atMs: 0 })),
      ...Array.from({ length: 20 }, (_, i) => ({ account: b, input: prompt(1000 + i), atMs: 2_000 * (i + 1) })),
    ],
  },
  {
    name: 'mix',
    describe: '120 jobs, one in four of 4 images',
    submissions: ({ a }) => Array.from({ length: 120 }, (_, i) => ({ account: a, input: { ...prompt(i), num_images: i % 4 === 0 ? '4' : '1' }, atMs: 0 })),
  },
];

interface Outcome {
  scenario: string;
  estimate: Estimate;
  jobs: number;
  byP90: number;
  medianError: number;
  worstRatio: number;
}

async function submit(url: string, account: TestAccount, input: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/v1/jobs/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, input }),
  });
  const body = (await res.json()) as { jobId?: string };
  if (res.status !== 201 || !body.jobId) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
  return body.jobId;
}

/** Submits in order of `atMs`, at most SUBMIT_CONCURRENCY at once. */
async function submitAll(url: string, submissions: Submission[]): Promise<string[]> {
  const started = Date.now();
  const ordered = [...submissions].sort((x, y) => x.atMs - y.atMs);
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SUBMIT_CONCURRENCY }, async () => {
      while (next < ordered.length) {
        const s = ordered[next++]!;
        const wait = started + s.atMs - Date.now();
        if (wait > 0) await sleep(wait);
        ids.push(await submit(url, s.account, s.input));
      }
    }),
  );
  return ids;
}

/** The estimate's stack: its processes on task queues of their own, with the line counted or not. */
async function withStack<T>(name: string, estimate: Estimate, run: (url: string) => Promise<T>): Promise<T> {
  const queues = `bench-eta-${name.replace(/\W+/g, '-')}-${estimate}-${Date.now()}`;
  const env = {
    TEMPORAL_TASK_QUEUE_PREFIX: `${queues}-`,
    PROVIDER_CONCURRENCY: `${PROVIDER}=${SLOTS}`,
    GENMEDIA_TEST_TUNING: tuningFile({ providers: { timeScale: TIME_SCALE }, jobs: { lineEstimates: estimate === 'line' } }),
  };
  const workflowWorker = startWorkflowWorkerProcess({ env });
  const providerWorker = startProviderWorkerProcess(PROVIDER, { env });
  const api = await startApiProcess({ env });
  try {
    return await run(api.url);
  } finally {
    await Promise.all([stopProcess(api.child), stopProcess(workflowWorker), stopProcess(providerWorker)]);
  }
}

async function warmUp(prisma: PrismaClient, url: string, account: TestAccount): Promise<void> {
  await until(() => submit(url, account, prompt(0)).then(() => true, () => false), 120_000, 1_000);
  await until(async () => (await prisma.job.count({ where: { accountId: account.accountId, status: 'completed' } })) > 0, 120_000, 200);
}

async function score(prisma: PrismaClient, scenario: string, estimate: Estimate, ids: string[]): Promise<Outcome> {
  const jobs = await prisma.job.findMany({
    where: { id: { in: ids } },
    select: { createdAt: true, completedAt: true, promisedCompletionTime: true, promisedCompletionTimeP90: true },
  });
  const errors: number[] = [];
  const ratios: number[] = [];
  let byP90 = 0;
  for (const job of jobs) {
    const actual = job.completedAt!.getTime() - job.createdAt.getTime();
    const promised = job.promisedCompletionTime!.getTime() - job.createdAt.getTime();
    // Before, the one figure promised is also the only bound a client had.
    const bound = (job.promisedCompletionTimeP90 ?? job.promisedCompletionTime)!.getTime();
    if (job.completedAt!.getTime() <= bound) byP90 += 1;
    errors.push(Math.abs(actual - promised) / actual);
    ratios.push(actual / Math.max(promised, 1));
  }
  errors.sort((x, y) => x - y);
  return { scenario, estimate, jobs: jobs.length, byP90: byP90 / jobs.length, medianError: percentile(errors, 50), worstRatio: Math.max(...ratios) };
}

async function measureScenario(prisma: PrismaClient, scenario: Scenario, estimate: Estimate): Promise<Outcome> {
  const account = (plan: string) => createTestAccount(prisma, { plan, creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 10_000 });
  const [a, b, warm] = [await account('standard'), await account('business'), await account('standard')];
  return withStack(scenario.name, estimate, async (url) => {
    await warmUp(prisma, url, warm);
    const ids = await submitAll(url, scenario.submissions({ a, b }));
    await until(async () => (await prisma.job.count({ where: { id: { in: ids }, status: 'completed' } })) === ids.length, 900_000, 500);
    return score(prisma, scenario.name, estimate, ids);
  });
}

/** Submits a second for THROUGHPUT_SUBMITS submits onto an idle line, SUBMIT_CONCURRENCY at a time. */
async function submitThroughput(prisma: PrismaClient, estimate: Estimate): Promise<number> {
  const account = await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 10_000 });
  // No provider worker is needed: the jobs only wait. The workflow worker admits them.
  return withStack('throughput', estimate, async (url) => {
    await until(() => submit(url, account, prompt(0)).then(() => true, () => false), 120_000, 1_000);
    const started = Date.now();
    await runConcurrently(THROUGHPUT_SUBMITS, SUBMIT_CONCURRENCY, async (i) => void (await submit(url, account, prompt(i))));
    return THROUGHPUT_SUBMITS / ((Date.now() - started) / 1000);
  });
}

export async function etaBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const versions = await prisma.modelVersion.findMany({ where: { model: { slug: MODEL } } });
  const outcomes: Outcome[] = [];
  const throughput: Record<Estimate, number> = { before: 0, line: 0 };
  try {
    // The model's per-account request limit (60 a minute) would refuse the floods; set back afterwards.
    await prisma.modelVersion.updateMany({ where: { model: { slug: MODEL } }, data: { requestsPerMinute: 100_000, requestsPerDay: 1_000_000 } });
    for (const scenario of SCENARIOS) {
      for (const estimate of ['before', 'line'] as const) {
        outcomes.push(await measureScenario(prisma, scenario, estimate));
        await sleep(2_000);
      }
    }
    // Alternating, so a noisy moment of the machine falls on both.
    for (const estimate of ['line', 'before', 'line', 'before'] as const) throughput[estimate] += (await submitThroughput(prisma, estimate)) / 2;
  } finally {
    for (const v of versions) {
      await prisma.modelVersion.update({
        where: { modelId_versionId: { modelId: v.modelId, versionId: v.versionId } },
        data: { requestsPerMinute: v.requestsPerMinute, requestsPerDay: v.requestsPerDay },
      });
    }
    await prisma.$disconnect();
  }

  console.log(`eta: ${PROVIDER} with ${SLOTS} slots, forge-pro jobs of about 1 s; before = processingSeconds from admission, line = the line's estimate`);
  printTable([
    ['scenario', 'estimate', 'jobs', 'done by promised p90', 'median |actual − p50| / actual', 'worst actual / promised'],
    ...outcomes.map((o) => [
      `${o.scenario} (${SCENARIOS.find((s) => s.name === o.scenario)!.describe})`,
      o.estimate,
      String(o.jobs),
      o.byP90.toFixed(2),
      o.medianError.toFixed(2),
      `${o.worstRatio.toFixed(1)}x`,
    ]),
  ]);
  console.log(`submit throughput: ${throughput.line.toFixed(1)}/s with the line's estimate, ${throughput.before.toFixed(1)}/s without (${(throughput.line / throughput.before).toFixed(2)}x)`);

  const line = outcomes.filter((o) => o.estimate === 'line');
  return [
    ...line.map((o) => ({
      target: `${o.scenario}: share done by the promised p90 in 0.85–0.97`,
      measured: o.byP90.toFixed(2),
      met: o.byP90 >= 0.85 && o.byP90 <= 0.97,
    })),
    ...line.map((o) => ({ target: `${o.scenario}: median |actual − p50| / actual at most 0.25`, measured: o.medianError.toFixed(2), met: o.medianError <= 0.25 })),
    {
      target: "submit throughput with the line's estimate at least 0.95x without",
      measured: `${(throughput.line / throughput.before).toFixed(2)}x`,
      met: throughput.line / throughput.before >= 0.95,
    },
  ];
}
