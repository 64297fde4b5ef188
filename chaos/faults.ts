/**
 * The seeded schedule of faults: every 4 to 10 s one of SIGKILL a provider worker the load uses, SIGKILL the workflow worker,
 * SIGKILL an API, restart Temporal, restart PostgreSQL, or stop MinIO for 20 s, until the load is done. The draws come
 * from their own stream, so the same seed gives the same sequence of faults whatever the load does.
 */
import type { Stack } from './stack';
import { LOAD_PROVIDERS } from './load';

const MINIO_DOWN_MS = 20_000;

export interface FaultLog {
  /** How many of each fault, by name. */
  counts: Record<string, number>;
  /** One line per fault, in order: when it began (s since the load started) and how long a restart took. */
  timeline: string[];
}

export async function injectFaults(stack: Stack, random: () => number, loadDone: Promise<unknown>, started: number): Promise<FaultLog> {
  const log: FaultLog = { counts: {}, timeline: [] };
  let done = false;
  void loadDone.finally(() => (done = true));
  const pick = <T>(items: T[]): T => (items.length === 1 ? items[0] : items[Math.floor(random() * items.length)]);
  const providerWorkers = LOAD_PROVIDERS.map((id) => `worker:${id}`).filter((name) => stack.providerWorkers.includes(name));
  while (!done) {
    await new Promise((r) => setTimeout(r, 4_000 + random() * 6_000));
    if (done) break;
    const at = Date.now();
    const note = (what: string) => {
      log.counts[what] = (log.counts[what] ?? 0) + 1;
      const took = Date.now() - at > 1_000 ? ` (back after ${((Date.now() - at) / 1000).toFixed(1)} s)` : '';
      const line = `+${((at - started) / 1000).toFixed(1)} s ${what}${took}`;
      log.timeline.push(line);
      console.log(`[chaos] ${line}`);
    };
    const action = random();
    if (action < 0.35) {
      const name = pick(providerWorkers);
      stack.kill(name);
      note(`SIGKILL ${name}`);
    } else if (action < 0.5) {
      stack.kill(stack.workflowWorker);
      note('SIGKILL workflow worker');
    } else if (action < 0.65) {
      const name = pick(stack.apis);
      stack.kill(name);
      note(`SIGKILL ${name}`);
    } else if (action < 0.77) {
      await stack.restartTemporal();
      note('restart Temporal');
    } else if (action < 0.89) {
      await stack.restartPostgres();
      note('restart PostgreSQL');
    } else {
      await stack.stopMinio(MINIO_DOWN_MS);
      note('MinIO down 20 s');
    }
  }
  return log;
}
