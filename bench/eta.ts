/**
 * How well a submit's promised completion holds (docs/eta.md), side by side in one run: the estimate as it was before
 * the line was counted (the version's processingSeconds from the admission, tuning jobs.lineEstimates false) and the
 * line's estimate, on the same scenarios, each with its own API, workflow worker and provider worker processes on task
 * queues of their own. Built-in providers with 2 slots, image jobs of about 1 s (30 s nominal × 1/30):
 *  - flood: 200 jobs at once;
 *  - fair share: account A (standard) floods 120 jobs while account B (business, weight 3) submits one every 2 s;
 *  - batch: a batch of 1,000 items (4 slots, jobs of 0.5 s) below 40 interactive jobs, one a second;
 *  - slower route: 120 jobs, one every 0.7 s; halfway, the provider's jobs turn three times slower (its worker is
 *    replaced by one whose time scale is three times longer, as a route whose upstream slows down);
 *  - mix: 120 jobs on lumina, one in five a text-to-video job (240 s nominal against 30 s: eight times the work).
 * Each scenario's models first run MIN_OBSERVED_RUNS jobs each, so that its routes have a history of their own.
 * Per scenario and estimate, from the jobs' rows: the share completed by the promised 90th percentile (before, the one
 * figure promised), the median of |actual − promised| / actual time from admission to completion, and the worst
 * actual / promised. And the submit throughput with the line's estimate against without it, 200 submits each.
 * BENCH_ETA_SCENARIOS (names, comma-separated: `slower route,batch`) runs only those scenarios.
 */
import { createPrisma, type PrismaClient } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { tuningFile } from '../test/support/stack';
import { sleep, startApiProcess, startProviderWorkerProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { percentile, printTable, runConcurrently, type Headline } from './stats';
import { MIN_OBSERVED_RUNS } from '../src/jobs/eta/runTime';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const LUMINA_IMAGE = 'lumina/lumi-xl/text-to-image';
const LUMINA_VIDEO = 'lumina/lumi-motion/text-to-video';
/** The models whose request limits the floods would pass: raised for the run, set back afterwards. */
const MODELS = [MODEL, LUMINA_IMAGE, LUMINA_VIDEO];
const SLOTS = 2;
const TIME_SCALE = 1 / 30;
const SUBMIT_CONCURRENCY = 8;
const THROUGHPUT_SUBMITS = 200;

type Estimate = 'before' | 'line';

interface Submission {
  account: TestAccount;
  model: string;
  input: Record<string, unknown>;
  /** Milliseconds after the scenario's start to submit it. */
  atMs: number;
}

/** The stack of one scenario's run, as its scenario may change it while it runs. */
interface RunningStack {
  url: string;
  /** Replaces the provider worker by one whose jobs take `factor` times as long, draining the old one's. */
  slowProvider(factor: number): Promise<void>;
}

interface Scenario {
  name: string;
  describe: string;
  provider: string;
  slots: number;
  timeScale: number;
  submissions(accounts: { a: TestAccount; b: TestAccount }): Submission[];
  /** Lines of a batch account A submits at the start, besides the single submits. */
  batchLines?: number;
  /** Run beside the submits, from the scenario's start. */
  during?(stack: RunningStack): Promise<void>;
}

const prompt = (i: number) => ({ prompt: `eta ${i}` });
const single = (account: TestAccount, i: number, atMs: number, model = MODEL, input: Record<string, unknown> = prompt(i)): Submission => ({ account, model, input, atMs });
const base = { provider: 'pixelforge', slots: SLOTS, timeScale: TIME_SCALE };

const SCENARIOS: Scenario[] = [
  {
    ...base,
    name: 'flood',
    describe: '200 jobs at once',
    submissions: ({ a }) => Array.from({ length: 200 }, (_, i) => single(a, i, 0)),
  },
  {
    ...base,
    name: 'fair share',
    describe: 'A floods 120, B (weight 3) one every 2 s',
    submissions: ({ a, b }) => [
      ...Array.from({ length: 120 }, (_, i) => single(a, i, 0)),
      ...Array.from({ length: 20 }, (_, i) => single(b, 1000 + i, 2_000 * (i + 1))),
    ],
  },
  {
    ...base,
    name: 'batch',
    describe: '1,000 batch items below 40 interactive jobs, 4 slots, 0.5 s jobs',
    slots: 4,
    timeScale: 1 / 60,
    batchLines: 1000,
    submissions: ({ b }) => Array.from({ length: 40 }, (_, i) => single(b, 2000 + i, 1_000 * (i + 1))),
  },
  {
    ...base,
    name: 'slower route',
    describe: '120 jobs, one every 0.7 s; three times slower from the 60th',
    submissions: ({ a }) => Array.from({ length: 120 }, (_, i) => single(a, i, 700 * i)),
    during: async (stack) => {
      await sleep(700 * 60);
      await stack.slowProvider(3);
    },
  },
  {
    ...base,
    name: 'mix',
    describe: '120 lumina jobs, one in five a video of 8x the work',
    provider: 'lumina',
    submissions: ({ a }) => Array.from({ length: 120 }, (_, i) => (i % 5 === 0 ? single(a, i, 0, LUMINA_VIDEO) : single(a, i, 0, LUMINA_IMAGE))),
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

async function post(url: string, account: TestAccount, path: string, body: object): Promise<Record<string, unknown>> {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer;
}

async function submit(url: string, account: TestAccount, model: string, input: Record<string, unknown>): Promise<string> {
  return (await post(url, account, '/v1/jobs/submit', { model, input })).jobId as string;
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
        ids.push(await submit(url, s.account, s.model, s.input));
      }
    }),
  );
  return ids;
}

/** The ids of the jobs of a batch of `lines` forge-pro items submitted by `account`, once every item is admitted. */
async function submitBatch(prisma: PrismaClient, url: string, account: TestAccount, lines: number): Promise<string[]> {
  const items = Array.from({ length: lines }, (_, i) => ({ customId: `item-${i}`, model: MODEL, input: prompt(10_000 + i) }));
  const batchId = (await post(url, account, '/v1/batches', { items })).batchId as string;
  await until(async () => (await prisma.batchItem.count({ where: { batchId, jobId: { not: null } } })) === lines, 300_000, 500);
  return (await prisma.batchItem.findMany({ where: { batchId }, select: { jobId: true } })).map((i) => i.jobId!);
}

/** The scenario's stack: its processes on task queues of their own, with the line counted or not. */
async function withStack<T>(scenario: Scenario, estimate: Estimate, run: (stack: RunningStack) => Promise<T>): Promise<T> {
  const queues = `bench-eta-${scenario.name.replace(/\W+/g, '-')}-${estimate}-${Date.now()}`;
  const envAt = (timeScale: number) => ({
    TEMPORAL_TASK_QUEUE_PREFIX: `${queues}-`,
    PROVIDER_CONCURRENCY: `${scenario.provider}=${scenario.slots}`,
    GENMEDIA_TEST_TUNING: tuningFile({ providers: { timeScale }, jobs: { lineEstimates: estimate === 'line' } }),
  });
  const env = envAt(scenario.timeScale);
  const workflowWorker = startWorkflowWorkerProcess({ env });
  let providerWorker = startProviderWorkerProcess(scenario.provider, { env });
  const api = await startApiProcess({ env });
  const stack: RunningStack = {
    url: api.url,
    async slowProvider(factor) {
      // The slower worker serves the line before the faster one drains (its running jobs finish at their own pace).
      const slower = startProviderWorkerProcess(scenario.provider, { env: envAt(scenario.timeScale * factor) });
      await sleep(3_000);
      await stopProcess(providerWorker);
      providerWorker = slower;
    },
  };
  try {
    return await run(stack);
  } finally {
    await Promise.all([stopProcess(api.child), stopProcess(workflowWorker), stopProcess(providerWorker)]);
  }
}

/**
 * Waits for the stack, then runs as many jobs of each model as the estimate needs to take the route's observed run times
 * instead of the catalog's (MIN_OBSERVED_RUNS): the scenarios measure a route with a history, as a deployment's are.
 */
async function warmUp(prisma: PrismaClient, url: string, account: TestAccount, models: string[]): Promise<void> {
  await until(() => submit(url, account, models[0]!, prompt(0)).then(() => true, () => false), 120_000, 1_000);
  for (const [m, model] of models.entries()) for (let i = m === 0 ? 1 : 0; i < MIN_OBSERVED_RUNS; i += 1) await submit(url, account, model, prompt(i));
  const runs = MIN_OBSERVED_RUNS * models.length;
  await until(async () => (await prisma.job.count({ where: { accountId: account.accountId, status: 'completed' } })) >= runs, 600_000, 200);
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
  const submissions = scenario.submissions({ a, b });
  return withStack(scenario, estimate, async (stack) => {
    await warmUp(prisma, stack.url, warm, [...new Set(submissions.map((x) => x.model))]);
    const [batchIds, ids] = await Promise.all([
      scenario.batchLines ? submitBatch(prisma, stack.url, a, scenario.batchLines) : [],
      submitAll(stack.url, submissions),
      scenario.during?.(stack),
    ]);
    const all = [...batchIds, ...ids];
    await until(async () => (await prisma.job.count({ where: { id: { in: all }, status: 'completed' } })) === all.length, 1_800_000, 1_000);
    return score(prisma, scenario.name, estimate, all);
  });
}

/** Submits a second for THROUGHPUT_SUBMITS submits onto an idle line, SUBMIT_CONCURRENCY at a time. */
async function submitThroughput(prisma: PrismaClient, estimate: Estimate): Promise<number> {
  const account = await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 10_000 });
  // No provider worker is needed: the jobs only wait. The workflow worker admits them.
  return withStack({ ...SCENARIOS[0]!, name: 'throughput' }, estimate, async ({ url }) => {
    await until(() => submit(url, account, MODEL, prompt(0)).then(() => true, () => false), 120_000, 1_000);
    const started = Date.now();
    await runConcurrently(THROUGHPUT_SUBMITS, SUBMIT_CONCURRENCY, async (i) => void (await submit(url, account, MODEL, prompt(i))));
    return THROUGHPUT_SUBMITS / ((Date.now() - started) / 1000);
  });
}

function chosenScenarios(): Scenario[] {
  const names = process.env.BENCH_ETA_SCENARIOS?.split(',').map((name) => name.trim()).filter(Boolean);
  if (!names) return SCENARIOS;
  const unknown = names.filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`BENCH_ETA_SCENARIOS: no scenario ${unknown.join(', ')} (there are ${SCENARIOS.map((s) => s.name).join(', ')})`);
  return SCENARIOS.filter((s) => names.includes(s.name));
}

export async function etaBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const versions = await prisma.modelVersion.findMany({ where: { model: { slug: { in: MODELS } } } });
  const outcomes: Outcome[] = [];
  const throughput: Record<Estimate, number> = { before: 0, line: 0 };
  try {
    // The models' per-account request limit (60 a minute) would refuse the floods; set back afterwards.
    await prisma.modelVersion.updateMany({ where: { model: { slug: { in: MODELS } } }, data: { requestsPerMinute: 100_000, requestsPerDay: 1_000_000 } });
    for (const scenario of chosenScenarios()) {
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

  console.log(`eta: built-in providers with ${SLOTS} slots, image jobs of about 1 s unless the scenario says otherwise; before = processingSeconds from admission, line = the line's estimate`);
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
