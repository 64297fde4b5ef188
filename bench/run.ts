/**
 * `npm run bench [name ...]`: runs the benchmarks against the throw-away stack that scripts/test.js starts.
 * Each prints its own figures; they are measured side by side in one run, never asserted in tests.
 */
// First: the build the test stacks run (it stands in for vitest's inject outside vitest).
import { ensureTestBuild } from './testBuild';
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector/promises';
import { batchBench } from './batch';
import { buildBench } from './build';
import { catalogCacheBench } from './catalogCache';
import { endToEndBench } from './endToEnd';
import { etaBench } from './eta';
import { fairnessBench } from './fairness';
import { listingBench } from './listing';
import { memoryBench } from './memory';
import { provenanceBench } from './provenance';
import { provenanceSigningBench } from './provenanceSigning';
import { routingBench } from './routing';
import { scaleOutBench } from './scaleOut';
import { sseFanoutBench } from './sseFanout';
import { retentionBench } from './retention';
import { printTable, type Headline } from './stats';
import { submitBench } from './submit';

const BENCHMARKS: Record<string, () => Promise<Headline[] | void>> = {
  batch: batchBench,
  build: buildBench,
  catalog: catalogCacheBench,
  e2e: endToEndBench,
  eta: etaBench,
  fairness: fairnessBench,
  listing: listingBench,
  memory: memoryBench,
  provenance: provenanceBench,
  'provenance-signing': provenanceSigningBench,
  routing: routingBench,
  retention: retentionBench,
  'scale-out': scaleOutBench,
  sse: sseFanoutBench,
  submit: submitBench,
};

/** With BENCH_CPU_PROFILE=<file>, this process's CPU profile (API and in-process workers) is written there. */
async function profiled<T>(run: () => Promise<T>): Promise<T> {
  const file = process.env.BENCH_CPU_PROFILE;
  if (!file) return run();
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile written to ${file}`);
  }
}

async function main(names: string[]) {
  const selected = names.length ? names : Object.keys(BENCHMARKS);
  await ensureTestBuild();
  const headlines: Headline[] = [];
  for (const name of selected) {
    const bench = BENCHMARKS[name];
    if (!bench) throw new Error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHMARKS).join(', ')}`);
    headlines.push(...((await bench()) ?? []));
    console.log('');
  }
  if (headlines.length === 0) return;
  console.log('targets, measured side by side in this run:');
  printTable([['target', 'measured', 'met'], ...headlines.map((h) => [h.target, h.measured, h.met ? 'yes' : 'NO'])]);
}

profiled(() => main(process.argv.slice(2))).then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
