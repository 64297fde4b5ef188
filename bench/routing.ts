/**
 * Hedging against a heavy-tailed time to start, on the routed FLUX.1 [dev] (route A fal, then Replicate) against
 * both upstreams' fakes, with the API, the workflow worker and the fal and replicate workers in this process, one run:
 *  - fal keeps each request IN_QUEUE for a seeded draw: most 0.3–1 s, 4% of them 10–40 s (exactly that share, at
 *    seeded positions), so route A's p99 time to start is far above its median; Replicate starts after 250 ms;
 *  - a warm-up of fal-only jobs gives route A observed times to start: the hedge delay is their p90 (min 1 s);
 *  - then pairs of jobs: one hedged (both routes, the version's default policy, hedging on) and one not (narrowed
 *    to `providers: ["fal"]`: one route, never hedged, as the version would run with hedging off, since nothing
 *    here fails over). Both of a pair get the same fal queue time, and jobs go out one at a time at a steady rate,
 *    the two sides alternating, so both see the same draws and the same machine load;
 *  - figures: p50/p99 submit-to-completed of each side; hedges decided, submitted and won, and how many began after
 *    route A had already left its queue (wasted); what the upstreams bill each side (bench/routingSpend.ts).
 * Route A's statistics are read over route health's 300 s window: the warm-up's at first, then the measured jobs'
 * own fal attempts (both sides'), as in production. Its slow starts never make it unhealthy (p90 far below 300 s).
 */
import os from 'node:os';
import { estimateCost } from '../src/domain/pricing';
import { resolveModelVersion } from '../src/catalog/versionResolver';
import { readRouteStats } from '../src/jobs/routeStats';
import type { PrismaClient } from '../src/db/prisma';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { startTestStack } from '../test/support/stack';
import { startFalFake, type FalFake } from '../test/support/upstreams/fal';
import { startReplicateFake } from '../test/support/upstreams/replicate';
import { sleep } from './processes';
import { upstreamSpend, type AttemptRow, type SpendOptions } from './routingSpend';
import { headline, percentile, printTable, type Headline } from './stats';

const MODEL = 'black-forest-labs/flux-dev/text-to-image';
const PAIRS = 200;
const WARM_UP = 40;
/** Jobs submitted per second, both sides together: what two cores keep up with beside Temporal and PostgreSQL. */
const RATE = 1.5;
const SEED = 20_261_124;
const BODY_MS: [number, number] = [300, 1_000];
const TAIL_MS: [number, number] = [10_000, 40_000];
const TAIL_SHARE = 0.04;
/**
 * Status checks of a generation (no callbacks here): the grain of time to start as we observe it. Not below 1 s: the
 * workflow waits for the next check on a Temporal timer, and on this stack's Temporal a shorter timer fires after
 * about a second anyway.
 */
const POLL_INTERVAL_MS = 1_000;
const ACCOUNTS = 16;
const HEALTH_WINDOW_SECONDS = 300;
const QUEUE_TOKEN = /\[queue (\d+) ms\]/;
/** How each side's prompts name it: `routing bench <pair> <side> [queue <ms> ms]`. */
const SIDE = { hedged: 'hedged', single: 'fal-only' } as const;
const sideOf = (prompt: string) => /^routing bench \d+ (\S+) \[queue/.exec(prompt)?.[1];
const SUBMIT_TRIES = 10;
const SLOWEST_SHOWN = 3;

/** mulberry32: a small seeded generator, so every run draws the same queue times. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `count` queue times in ms: exactly round(count × TAIL_SHARE) of them in the tail, at seeded positions. */
function queueTimes(count: number, random: () => number): number[] {
  const tail = Math.round(count * TAIL_SHARE);
  const between = ([low, high]: [number, number]) => Math.round(low + random() * (high - low));
  const times = Array.from({ length: count }, (_, i) => between(i < tail ? TAIL_MS : BODY_MS));
  for (let i = times.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [times[i], times[j]] = [times[j], times[i]];
  }
  return times;
}

/**
 * The fake draws a request's queue time while handling its submit, right after recording it: the latest recorded
 * request is that submit, whose prompt carries the time this bench chose for the job. Checked after the run.
 */
function queueTimeFromPrompt(fal: FalFake): () => number {
  return () => {
    const match = QUEUE_TOKEN.exec(fal.requests.at(-1)?.body ?? '');
    return match ? Number(match[1]) : 0;
  };
}

interface Submitted {
  jobId: string;
  hedged: boolean;
  submittedAt: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function routingBench(): Promise<Headline[]> {
  const benchStarted = Date.now();
  const loadAtStart = os.loadavg()[0];
  const [fal, replicate] = await Promise.all([startFalFake(), startReplicateFake()]);
  fal.queuedMs = queueTimeFromPrompt(fal);
  // The API leaves out a route whose upstream has no key, and the workers read theirs, from this process's env.
  const saved = { ...process.env };
  Object.assign(process.env, fal.env, replicate.env, { FAL_ADMIN_KEY: fal.adminKey });
  const stack = await startTestStack({
    providers: ['fal', 'replicate'],
    env: {
      LOG_LEVEL: 'error',
      // Upstream activities only wait on HTTP: enough slots that our own worker never queues a check.
      PROVIDER_CONCURRENCY: '32',
    },
    tuning: { upstreams: { pollIntervalMs: POLL_INTERVAL_MS, timeoutSeconds: 300 } },
  });
  try {
    const prisma = stack.prisma;
    const accounts: TestAccount[] = [];
    // The version allows 60 submits a minute per account: spread over enough accounts that none is refused.
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 }));
    let sent = 0;
    let retried = 0;
    /**
     * A submit as a client makes it: a 503 (nothing charged, "retry the request") is retried after its Retry-After;
     * the time runs from the first try. Both sides alike: a busy machine sheds either.
     */
    const submit = async (name: string, queueMs: number, hedged: boolean): Promise<Submitted> => {
      const account = accounts[sent++ % ACCOUNTS];
      const submittedAt = Date.now();
      for (let attempt = 1; ; attempt++) {
        const res = await fetch(`${stack.url}/v1/jobs/submit`, {
          method: 'POST',
          headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `routing-bench-${name.replace(/ /g, '-')}` },
          body: JSON.stringify({ model: MODEL, input: { prompt: `routing bench ${name} [queue ${queueMs} ms]` }, ...(hedged ? {} : { providers: ['fal'] }) }),
        });
        const body = (await res.json()) as { jobId?: string };
        if ((res.status === 201 || res.status === 200) && body.jobId) return { jobId: body.jobId, hedged, submittedAt };
        if (res.status !== 503 || attempt >= SUBMIT_TRIES) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
        retried += 1;
        await sleep(Number(res.headers.get('retry-after') ?? 1) * 1000);
      }
    };
    /** Sends `jobs` one every 1/RATE s whatever the answers, so a slow job never holds the next one back. */
    const paced = async (jobs: { name: string; queueMs: number; hedged: boolean }[]): Promise<Submitted[]> => {
      const start = Date.now();
      const pending: Promise<Submitted>[] = [];
      for (const [k, job] of jobs.entries()) {
        await sleep(Math.max(0, start + (k * 1000) / RATE - Date.now()));
        const submitted = submit(job.name, job.queueMs, job.hedged);
        submitted.catch(() => undefined); // awaited below, with the others
        pending.push(submitted);
      }
      return Promise.all(pending);
    };

    const random = seeded(SEED);
    await paced(queueTimes(WARM_UP, random).map((queueMs, i) => ({ name: `warm-up ${i}`, queueMs, hedged: false })));
    // The warm-up's starts observed (its tail is still queued: those count once they start, as in production).
    await sleep(5_000);
    const before = await routeAStats(prisma);

    const draws = queueTimes(PAIRS, random);
    // Within a pair, which side goes first alternates, so neither always sees the other's load just ahead of it.
    const measured = await paced(
      draws.flatMap((queueMs, i) => {
        const pair = [
          { name: `${i} ${SIDE.hedged}`, queueMs, hedged: true },
          { name: `${i} ${SIDE.single}`, queueMs, hedged: false },
        ];
        return i % 2 === 0 ? pair : pair.reverse();
      }),
    );
    await waitForEnd(prisma, measured.map((s) => s.jobId), 120_000);
    const after = await routeAStats(prisma);

    checkQueueTimes(fal);
    const resolved = await resolveModelVersion(prisma, MODEL);
    if (!resolved) throw new Error(`${MODEL} is not in the catalog`);
    // Every job has the same input once its defaults are applied (one image): each route's list price for it.
    const { input } = await prisma.job.findUniqueOrThrow({ where: { id: measured[0].jobId }, select: { input: true } });
    const listPrice = Object.fromEntries(
      resolved.routes.map((route) => [route.providerId, route.listPrice ? estimateCost(route.listPrice, input as Record<string, unknown>, 0).estimatedCostMicroCents : NaN]),
    );
    const sides = await Promise.all(
      [true, false].map((hedged) =>
        sideFigures(prisma, measured.filter((s) => s.hedged === hedged), (prompt) => sideOf(prompt) === (hedged ? SIDE.hedged : SIDE.single), { fal, replicate, listPrice }),
      ),
    );
    const [withHedging, without] = sides;

    const drawn = [...draws].sort((a, b) => a - b);
    console.log(
      `routing: ${MODEL}, ${PAIRS} jobs each side (after ${WARM_UP} warm-up jobs), ${RATE} jobs/s, status checks every ${POLL_INTERVAL_MS} ms`,
    );
    console.log(
      `  fal queue times drawn (seed ${SEED}): ${BODY_MS.join('–')} ms, ${TAIL_SHARE * 100}% at ${TAIL_MS.map((ms) => ms / 1000).join('–')} s; ` +
        `p50 ${seconds(percentile(drawn, 50))}, p99 ${seconds(percentile(drawn, 99))}`,
    );
    const money = (microCents: number) => `$${(microCents / 1_000_000).toFixed(3)}`;
    const rows = [['side', 'jobs', 'failed', 'p50', 'p99', 'max', 'hedges', 'submitted', 'won', 'spend billed', 'spend upper bound']];
    for (const [name, f] of [['hedged (both routes)', withHedging], ['not hedged (providers: fal)', without]] as const) {
      rows.push([name, String(f.jobs), String(f.failed), seconds(f.p50), seconds(f.p99), seconds(f.max), String(f.hedges), String(f.hedgesSubmitted), String(f.hedgesWon), money(f.spend.billed), money(f.spend.upperBound)]);
    }
    const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;
    rows.push(['hedged vs not', '', '', ratio(withHedging.p50, without.p50), ratio(withHedging.p99, without.p99), ratio(withHedging.max, without.max), '', '', '', ratio(withHedging.spend.billed, without.spend.billed), ratio(withHedging.spend.upperBound, without.spend.upperBound)]);
    printTable(rows);
    console.log('  (hedges: hedge attempts the workflow decided on; submitted: of those, accepted by Replicate; won: produced the outputs)');
    console.log(
      `  hedges begun after route A had already left its queue: ${withHedging.hedgesLate} of ${withHedging.hedges}` +
        ` (${withHedging.hedgesNeverSubmitted} never submitted: route A finished first)`,
    );
    const cut = 1 - withHedging.p99 / without.p99;
    const extra = withHedging.spend.billed / without.spend.billed - 1;
    console.log(`  p99 cut by ${(cut * 100).toFixed(1)}% for ${(extra * 100).toFixed(1)}% more upstream spend (upper bound ${((withHedging.spend.upperBound / without.spend.upperBound - 1) * 100).toFixed(1)}%)`);
    for (const [name, f] of [['hedged', withHedging], ['not hedged', without]] as const) {
      const { accepted, orphans } = f.spend;
      console.log(`  ${name}: generations accepted upstream: fal ${accepted.fal}, Replicate ${accepted.replicate}${orphans > 0 ? `; ${orphans} of them held by no attempt` : ''}`);
      if (f.failed > 0) console.log(`  ${name}: ${f.failed} jobs did not complete (${f.errors.join(', ')}): left out of the percentiles`);
    }
    console.log(`  slowest hedged jobs (fal queue time; attempts: route role status, started → running → ended after the submit):`);
    for (const slow of withHedging.slowest) console.log(`    ${slow}`);
    console.log(`  route A time to start as observed, not-hedged side: p50 ${seconds(without.startP50)}, p90 ${seconds(without.startP90)}, p99 ${seconds(without.startP99)}`);
    console.log(`  route A p90 time to start (the hedge delay, min 1 s): ${describeP90(before)} after the warm-up, ${describeP90(after)} at the end`);
    console.log(`  machine load (1 min average, ${os.cpus().length} cores): ${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`);
    console.log(`  run time ${seconds(Date.now() - benchStarted)}${retried > 0 ? `; ${retried} submits answered 503 and were retried` : ''}`);
    return [
      headline('routing: p99 submit-to-completed, hedged vs not', withHedging.p99 / without.p99, 0.6, 'at most'),
      headline('routing: upstream spend billed, hedged vs not', withHedging.spend.billed / without.spend.billed, 1.1, 'at most'),
    ];
  } finally {
    await stack.stop();
    await Promise.all([fal.close(), replicate.close()]);
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  }
}

/** Waits until every one of `jobIds` has ended (completed, failed or cancelled), at most `ms`. */
async function waitForEnd(prisma: PrismaClient, jobIds: string[], ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const count = await prisma.job.count({ where: { id: { in: jobIds }, status: { in: ['completed', 'failed', 'cancelled'] } } });
    if (count === jobIds.length) return;
    if (Date.now() > deadline) throw new Error(`${jobIds.length - count} of ${jobIds.length} jobs still running after ${ms / 1000} s`);
    await sleep(1_000);
  }
}

async function routeAStats(prisma: PrismaClient) {
  return (await readRouteStats(prisma, MODEL, ['fal'], HEALTH_WINDOW_SECONDS)).get('fal')?.p90StartSeconds ?? null;
}

function describeP90(p90: number | null): string {
  return p90 === null ? 'none (no hedging)' : `${p90.toFixed(2)} s`;
}

/** Every fal request of this run stayed queued for the time its prompt asked for. */
function checkQueueTimes(fal: FalFake): void {
  const wrong = fal.falRequests().filter((r) => Number(QUEUE_TOKEN.exec(String(r.input.prompt))?.[1]) !== r.queuedMs);
  if (wrong.length > 0) throw new Error(`${wrong.length} fal requests were not queued for the time their prompt asked for`);
}

async function sideFigures(prisma: PrismaClient, jobs: Submitted[], ofSide: (prompt: string) => boolean, spendOptions: SpendOptions) {
  const ids = jobs.map((j) => j.jobId);
  const rows = await prisma.job.findMany({ where: { id: { in: ids } }, select: { id: true, status: true, completedAt: true, errorCode: true, input: true } });
  const submittedAt = new Map(jobs.map((j) => [j.jobId, j.submittedAt]));
  const latencies = rows
    .filter((r) => r.status === 'completed' && r.completedAt)
    .map((r) => r.completedAt!.getTime() - submittedAt.get(r.id)!)
    .sort((a, b) => a - b);
  const attempts = await prisma.jobAttempt.findMany({
    where: { jobId: { in: ids } },
    select: { jobId: true, number: true, status: true, providerId: true, role: true, upstreamId: true, startedAt: true, runningAt: true, endedAt: true, upstreamCostMicroCents: true, producedOutputs: true },
  });
  const starts = attempts
    .filter((a) => a.providerId === 'fal' && a.runningAt)
    .map((a) => a.runningAt!.getTime() - a.startedAt.getTime())
    .sort((a, b) => a - b);
  const hedges = attempts.filter((a) => a.role === 'hedge');
  // A hedge is wasted when route A had already left its queue (by the fake's clock) before the hedge attempt began.
  const falRequests = new Map(spendOptions.fal.falRequests().map((r) => [r.id, r]));
  const leftQueueAt = new Map(
    attempts
      .filter((a) => a.providerId === 'fal' && a.upstreamId && falRequests.has(a.upstreamId))
      .map((a) => [a.jobId, falRequests.get(a.upstreamId!)!.createdAt + falRequests.get(a.upstreamId!)!.queuedMs]),
  );
  const late = hedges.filter((h) => (leftQueueAt.get(h.jobId) ?? Number.POSITIVE_INFINITY) < h.startedAt.getTime());
  const slowest = rows
    .filter((r) => r.completedAt)
    .map((r) => ({ ...r, ms: r.completedAt!.getTime() - submittedAt.get(r.id)! }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, SLOWEST_SHOWN)
    .map((r) => {
      const at = (date: Date | null) => (date ? seconds(date.getTime() - submittedAt.get(r.id)!) : '–');
      const tried = attempts
        .filter((a) => a.jobId === r.id)
        .sort((a, b) => a.number - b.number)
        .map((a) => `${a.providerId} ${a.role} ${a.status} ${at(a.startedAt)} → ${at(a.runningAt)} → ${at(a.endedAt)}`);
      return `${seconds(r.ms)} (queue ${seconds(Number(QUEUE_TOKEN.exec(String((r.input as { prompt?: unknown }).prompt))?.[1]))}): ${tried.join('; ')}`;
    });
  return {
    jobs: jobs.length,
    failed: rows.filter((r) => r.status !== 'completed').length,
    errors: [...new Set(rows.filter((r) => r.status !== 'completed').map((r) => `${r.status} ${r.errorCode ?? ''}`.trim()))],
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    startP50: percentile(starts, 50),
    startP90: percentile(starts, 90),
    startP99: percentile(starts, 99),
    hedges: hedges.length,
    hedgesSubmitted: hedges.filter((a) => a.upstreamId).length,
    hedgesLate: late.length,
    hedgesNeverSubmitted: late.filter((h) => !h.upstreamId).length,
    hedgesWon: hedges.filter((a) => a.producedOutputs).length,
    slowest,
    spend: await upstreamSpend(ofSide, attempts as AttemptRow[], spendOptions),
  };
}
