/**
 * What must hold after upstream outages, beyond the money and delivery checks of checks.ts: each route paid at most
 * once per job (from the generations each fake accepted, traced to their job by the prompt's marker), every paid
 * generation belonging to an accepted job, every completed job's outputs coming from a generation paid for it, at
 * least 99 % of jobs completed and a job failed only if it was caught while both routes were down. Also the figures
 * of the run: failovers and hedges, attempts per route, paid submissions, lost answers, outages; and, for each failed
 * job, one line of how its attempts ended.
 */
import type { PrismaClient } from '../src/db/prisma';
import type { Storage } from '../src/storage/storage';
import type { Accepted, CheckRow } from './checks';
import { percentile } from './summary';
import { ROUTES, submitOfPrompt, type OutageLog, type Route, type UpstreamFakes, type Window } from './upstreamOutages';

const COMPLETED_SHARE_GOAL = 0.99;
const seconds = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)} s`);

/** A generation an upstream accepted (and bills), and the submit its prompt names. */
interface Paid {
  upstreamId: string;
  submit: number | undefined;
}

const countBy = <T>(items: T[], key: (item: T) => string): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const item of items) out[key(item)] = (out[key(item)] ?? 0) + 1;
  return out;
};
const listCounts = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || '-';
const totalSeconds = (windows: Window[]) => (windows.reduce((sum, w) => sum + (w.to - w.from), 0) / 1000).toFixed(1);

export async function checkRoutes(input: {
  prisma: PrismaClient;
  storage: Storage;
  seed: number;
  accepted: Accepted[];
  fakes: UpstreamFakes;
  outages: OutageLog;
}): Promise<{ rows: CheckRow[]; figures: [string, string][]; failedJobs: string[] }> {
  const { prisma, storage, seed, accepted, fakes, outages } = input;
  const jobs = await prisma.job.findMany({ where: { id: { in: accepted.map((a) => a.jobId) } }, include: { attempts: true } });
  const submitOf = new Map(accepted.map((a) => [a.jobId, a.submit]));
  const acceptedSubmits = new Set(accepted.map((a) => a.submit));
  const rows: CheckRow[] = [];
  const figures: [string, string][] = [];

  const paid: Record<Route, Paid[]> = {
    fal: fakes.fal.falRequests().map((r) => ({ upstreamId: r.id, submit: submitOfPrompt(seed, r.input.prompt) })),
    replicate: fakes.replicate.predictions().map((p) => ({ upstreamId: p.id, submit: submitOfPrompt(seed, p.input.prompt) })),
  };
  // Submit requests that reached each fake (a refused connection never does), paid or not.
  const received: Record<Route, number> = {
    fal: fakes.fal.requests.filter((r) => r.method === 'POST' && r.url.split('?')[0] === '/fal-ai/flux/dev').length,
    replicate: fakes.replicate.requests.filter((r) => r.method === 'POST' && r.url === '/v1/models/black-forest-labs/flux-dev/predictions').length,
  };
  const paidCount: Record<Route, number> = { fal: fakes.fal.paidSubmissions(), replicate: fakes.replicate.paidSubmissions() };

  // ── each route paid at most once per job ──
  const perJob: Record<Route, Map<number, number>> = { fal: new Map(), replicate: new Map() };
  for (const route of ROUTES) for (const p of paid[route]) if (p.submit !== undefined) perJob[route].set(p.submit, (perJob[route].get(p.submit) ?? 0) + 1);
  const maxPerJob = (route: Route) => Math.max(0, ...perJob[route].values());
  const paidTwice = ROUTES.flatMap((route) =>
    [...perJob[route]].filter(([, n]) => n > 1).map(([submit, n]) => `${accepted.find((a) => a.submit === submit)?.jobId ?? `submit ${submit}`} ${n}× on ${route}`),
  );
  rows.push({
    check: 'each route paid at most once per job',
    ok: paidTwice.length === 0,
    figure: `max per job: fal ${maxPerJob('fal')}, replicate ${maxPerJob('replicate')}${paidTwice.length ? `; ${paidTwice.slice(0, 5).join(', ')}` : ''}`,
  });

  // ── every paid generation is an accepted job's ──
  const stray = ROUTES.flatMap((route) => paid[route].filter((p) => p.submit === undefined || !acceptedSubmits.has(p.submit)).map((p) => `${route} ${p.upstreamId}`));
  const countsAgree = ROUTES.every((route) => paid[route].length === paidCount[route]);
  rows.push({
    check: 'every paid generation belongs to an accepted job',
    ok: stray.length === 0 && countsAgree,
    figure: `${stray.length} stray${stray.length ? ` (${stray.slice(0, 3).join(', ')})` : ''}; fakes' paid counts ${countsAgree ? 'match' : 'DO NOT match'} their generations`,
  });

  // ── completed jobs' outputs come from a generation paid for that job ──
  const completed = jobs.filter((j) => j.status === 'completed');
  const paidIds: Record<Route, Map<string, number | undefined>> = {
    fal: new Map(paid.fal.map((p) => [p.upstreamId, p.submit])),
    replicate: new Map(paid.replicate.map((p) => [p.upstreamId, p.submit])),
  };
  const foreign = completed.filter((job) => {
    const winner = job.attempts.find((a) => a.producedOutputs);
    if (!winner || !winner.upstreamId || !(ROUTES as readonly string[]).includes(winner.providerId)) return true;
    const ids = paidIds[winner.providerId as Route];
    return !ids.has(winner.upstreamId) || ids.get(winner.upstreamId) !== submitOf.get(job.id);
  });
  rows.push({
    check: "every completed job's outputs came from a generation paid for it",
    ok: foreign.length === 0,
    figure: `${completed.length - foreign.length}/${completed.length}${foreign.length ? `; not: ${foreign.slice(0, 3).map((j) => j.id).join(', ')}` : ''}`,
  });

  // ── completed share, and failures only where both routes were down ──
  const failed = jobs.filter((j) => j.status === 'failed');
  const caughtBothDown = (job: (typeof jobs)[number]) => {
    const life = { from: job.createdAt.getTime(), to: (job.completedAt ?? job.updatedAt).getTime() };
    return outages.bothDown.some((w) => Math.max(w.from, life.from) < Math.min(w.to, life.to));
  };
  const excused = failed.filter(caughtBothDown);
  const share = accepted.length === 0 ? 0 : completed.length / accepted.length;
  rows.push({
    check: `at least ${COMPLETED_SHARE_GOAL * 100} % of accepted jobs completed`,
    ok: share >= COMPLETED_SHARE_GOAL,
    figure: `${completed.length}/${accepted.length} (${(100 * share).toFixed(1)} %)`,
  });
  const failedCodes = listCounts(countBy(failed, (j) => j.errorCode ?? 'no code'));
  rows.push({
    check: 'a job failed only if caught while both routes were down',
    ok: excused.length === failed.length,
    figure: `${failed.length} failed (${excused.length} caught while both down)${failed.length ? `: ${failedCodes}` : ''}${failed.length > excused.length ? `; e.g. ${failed.filter((j) => !caughtBothDown(j)).slice(0, 3).map((j) => j.id).join(', ')}` : ''}`,
  });

  // ── the run exercised both routes ──
  const attempts = jobs.flatMap((j) => j.attempts);
  const attemptsOn = (route: Route) => attempts.filter((a) => a.providerId === route);
  rows.push({
    check: 'both routes took attempts (the fakes reached the API and the workers)',
    ok: ROUTES.every((route) => attemptsOn(route).length > 0),
    figure: ROUTES.map((route) => `${route} ${attemptsOn(route).length}`).join(', '),
  });

  // ── figures ──
  // By attempt number: a first attempt whose start never reached a worker before its hedge won has no row.
  const multi = jobs.filter((j) => j.attempts.some((a) => a.number > 1));
  const withoutFirst = jobs.filter((j) => !j.attempts.some((a) => a.number === 1)).length;
  const durations = jobs.filter((j) => j.completedAt).map((j) => j.completedAt!.getTime() - j.createdAt.getTime());
  const withRole = (role: string) => jobs.filter((j) => j.attempts.some((a) => a.role === role)).length;
  const attemptIds = new Set(attempts.map((a) => a.upstreamId).filter((id): id is string => id !== null));
  figures.push(
    ['jobs accepted', `${accepted.length}`],
    ['completed share', `${(100 * share).toFixed(1)} % (${completed.length} completed, ${failed.length} failed, ${jobs.length - completed.length - failed.length} other)`],
    ['failed, by error code', failedCodes],
    ['jobs tried on more than one route', `${multi.length} (failover ${withRole('failover')}, hedge ${withRole('hedge')}; ${withoutFirst} without a row for attempt 1)`],
    ['job time, submit to end p50 / p95 / max', [50, 95, 100].map((p) => seconds(percentile(durations, p))).join(' / ')],
    ['completed on route', listCounts(countBy(completed, (j) => j.attempts.find((a) => a.producedOutputs)?.providerId ?? 'none'))],
  );
  for (const route of ROUTES) {
    const of = attemptsOn(route);
    figures.push([`  ${route} attempts by outcome`, `${of.length}: ${listCounts(countBy(of, (a) => a.status))}`]);
    const errors = countBy(of.filter((a) => a.errorCode), (a) => a.errorCode!);
    if (Object.keys(errors).length > 0) figures.push([`  ${route} attempt errors`, listCounts(errors)]);
  }
  for (const route of ROUTES) {
    // A paid generation no attempt knows by id: its answer was lost (the attempt failed UPSTREAM_OUTCOME_UNKNOWN).
    const unknown = paid[route].filter((p) => !attemptIds.has(p.upstreamId)).length;
    figures.push([
      `${route} paid submissions`,
      `${paidCount[route]} of ${received[route]} submit requests received; max ${maxPerJob(route)} per job; ${unknown} with the answer lost; ${fakes[route].cancellations()} cancels`,
    ]);
  }
  figures.push(
    ...ROUTES.map((route): [string, string] => [`time ${route} was down`, `${totalSeconds(outages.windows[route])} s in ${outages.windows[route].length} outages`]),
    ['time both were down at once', `${totalSeconds(outages.bothDown)} s in ${outages.bothDown.length} stretches`],
  );
  // A failed job is refunded; files its attempts stored anyway are waste (and a sign of a race between attempts).
  let leftOutputs = 0;
  for (const job of failed) for await (const _ of storage.listObjects(storage.outputsBucket, `${job.id}/`)) leftOutputs += 1;
  figures.push(['output files left by failed jobs', `${leftOutputs}`]);

  const failedJobs = failed.map((job) => {
    const tried = job.attempts
      .sort((a, b) => a.number - b.number)
      .map((a) => `${a.number} ${a.providerId} ${a.role} ${a.status}${a.errorCode ? ` ${a.errorCode}` : ''}`)
      .join('; ');
    return `${job.id} ${job.errorCode ?? ''}${caughtBothDown(job) ? ' (both routes down)' : ''}: ${tried}; outputs claimed by ${job.winningAttempt ?? 'none'}`;
  });
  return { rows, figures, failedJobs };
}
