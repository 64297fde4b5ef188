/**
 * The upstream-outages mode of a chaos run (`npm run chaos -- --upstream-outages`): jobs on the routed FLUX.1 [dev]
 * (fal first, then Replicate, docs/routing.md) against the two upstreams' fakes, while a seeded schedule takes fal
 * down (refusing connections) for 10 to 20 s and brings it back for 10 to 30 s, over and over, and now and then takes
 * Replicate down for 2 to 6 s at a drawn moment of the same cycle, so both are down together for a few seconds at
 * most. Every prompt carries a marker of its submit, which is how each fake's paid generations are traced to a job.
 */
import { startFalFake, type FalFake } from '../test/support/upstreams/fal';
import { startReplicateFake, type ReplicateFake } from '../test/support/upstreams/replicate';
import type { TuningOverride } from '../src/config';
import type { FaultLog } from './faults';
import type { LoadProfile } from './load';

export const ROUTED_MODEL = 'black-forest-labs/flux-dev/text-to-image';
/** The model's routes, in the catalog's order. */
export const ROUTES = ['fal', 'replicate'] as const;
export type Route = (typeof ROUTES)[number];

const FAL_UP_MS: [number, number] = [10_000, 30_000];
const FAL_DOWN_MS: [number, number] = [10_000, 20_000];
/** The share of fal's cycles in which Replicate goes down too, and for how long. */
const REPLICATE_OUTAGE_SHARE = 0.35;
const REPLICATE_DOWN_MS: [number, number] = [2_000, 6_000];

export interface UpstreamFakes {
  fal: FalFake;
  replicate: ReplicateFake;
  /** What the API and the workers need to use them: credentials, origins. */
  env: Record<string, string>;
  /** How often the workers check a generation, and how long one may take. */
  tuning: TuningOverride;
  close(): Promise<void>;
}

export async function startUpstreamFakes(): Promise<UpstreamFakes> {
  const [fal, replicate] = await Promise.all([startFalFake(), startReplicateFake()]);
  return {
    fal,
    replicate,
    env: {
      ...fal.env,
      ...replicate.env,
      // The fakes serve outputs on loopback.
      INPUT_FETCH_ALLOW_PRIVATE: '1',
    },
    // Callbacks come to the API; a lost one (fal's keys unreachable while fal is down) is caught by the safety net.
    tuning: { upstreams: { pollIntervalMs: 1000, safetyNetPollMs: 2000, timeoutSeconds: 240 } },
    close: async () => {
      await Promise.all([fal.close(), replicate.close()]);
    },
  };
}

/** The marker of submit `i`: unique in the run, and never mistaken for another (`-12 ` is not `-1`). */
export const markerOf = (seed: number, i: number) => `chaos-outage-${seed}-${i}-end`;

/** The submit a prompt belongs to, from its marker, or undefined. */
export function submitOfPrompt(seed: number, prompt: unknown): number | undefined {
  if (typeof prompt !== 'string') return undefined;
  const match = new RegExp(`chaos-outage-${seed}-(\\d+)-end`).exec(prompt);
  return match ? Number(match[1]) : undefined;
}

/** Every job on the routed model with a marked prompt; no cancels, no injected failures. */
export function outageProfile(seed: number): LoadProfile {
  return {
    models: [ROUTED_MODEL],
    prompt: (i) => `a lighthouse at dusk ${markerOf(seed, i)}`,
    cancelShare: 0,
    transientShare: 0,
  };
}

export interface Window {
  /** Epoch milliseconds. */
  from: number;
  to: number;
}

export interface OutageLog extends FaultLog {
  /** When each route was down. */
  windows: Record<Route, Window[]>;
  /** When both were down at once. */
  bothDown: Window[];
}

/** The stretches where a window of `a` and one of `b` overlap. */
export function overlaps(a: Window[], b: Window[]): Window[] {
  const out: Window[] = [];
  for (const x of a) for (const y of b) if (Math.max(x.from, y.from) < Math.min(x.to, y.to)) out.push({ from: Math.max(x.from, y.from), to: Math.min(x.to, y.to) });
  return out.sort((p, q) => p.from - q.from);
}

const between = (random: () => number, [low, high]: [number, number]) => Math.round(low + random() * (high - low));

/**
 * Runs fal's cycles (up, then down) until the load is done, then brings everything up. Each cycle's durations and
 * Replicate's outage in it are drawn before the cycle starts, so the same seed gives the same schedule.
 */
export async function injectUpstreamOutages(fakes: UpstreamFakes, random: () => number, loadDone: Promise<unknown>, started: number): Promise<OutageLog> {
  const log: OutageLog = { counts: {}, timeline: [], windows: { fal: [], replicate: [] }, bothDown: [] };
  let done = false;
  let wake: () => void = () => undefined;
  void loadDone.finally(() => {
    done = true;
    wake();
  });
  /** Sleeps until `at` (epoch ms) or until the load is done, whichever comes first. */
  const until = (at: number) =>
    new Promise<void>((resolve) => {
      if (done) return resolve();
      const timer = setTimeout(resolve, Math.max(0, at - Date.now()));
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const downSince: Partial<Record<Route, number>> = {};
  const since = (at: number) => `+${((at - started) / 1000).toFixed(1)} s`;
  const setDown = async (route: Route) => {
    await fakes[route].down();
    downSince[route] = Date.now();
    log.counts[`${route} down`] = (log.counts[`${route} down`] ?? 0) + 1;
  };
  const setUp = async (route: Route) => {
    const from = downSince[route];
    if (from === undefined) return;
    await fakes[route].up();
    const to = Date.now();
    delete downSince[route];
    log.windows[route].push({ from, to });
    const line = `${since(from)} ${route} down for ${((to - from) / 1000).toFixed(1)} s`;
    log.timeline.push(line);
    console.log(`[chaos] ${line}`);
  };

  while (!done) {
    const upMs = between(random, FAL_UP_MS);
    const downMs = between(random, FAL_DOWN_MS);
    const replicateOut = random() < REPLICATE_OUTAGE_SHARE;
    const replicateMs = between(random, REPLICATE_DOWN_MS);
    const replicateAt = Math.round(random() * (upMs + downMs - replicateMs));
    const cycle = Date.now();
    const events: { at: number; act: () => Promise<void> }[] = [
      { at: cycle + upMs, act: () => setDown('fal') },
      { at: cycle + upMs + downMs, act: () => setUp('fal') },
    ];
    if (replicateOut) {
      events.push({ at: cycle + replicateAt, act: () => setDown('replicate') }, { at: cycle + replicateAt + replicateMs, act: () => setUp('replicate') });
    }
    events.sort((a, b) => a.at - b.at);
    for (const event of events) {
      await until(event.at);
      if (done) break;
      await event.act();
    }
  }
  for (const route of ROUTES) await setUp(route);
  log.bothDown = overlaps(log.windows.fal, log.windows.replicate);
  log.timeline.sort((a, b) => Number.parseFloat(a.slice(1)) - Number.parseFloat(b.slice(1)));
  return log;
}
