/**
 * `npm run bench [name ...]`: runs the benchmarks against the throw-away stack that scripts/test.js starts.
 * Each prints its own figures; they are measured side by side in one run, never asserted in tests.
 */
import { catalogCacheBench } from './catalogCache';
import { listingBench } from './listing';
import { memoryBench } from './memory';
import { scaleOutBench } from './scaleOut';
import { sseFanoutBench } from './sseFanout';
import { printTable, type Headline } from './stats';
import { submitBench } from './submit';

const BENCHMARKS: Record<string, () => Promise<Headline[] | void>> = {
  catalog: catalogCacheBench,
  listing: listingBench,
  memory: memoryBench,
  'scale-out': scaleOutBench,
  sse: sseFanoutBench,
  submit: submitBench,
};

async function main(names: string[]) {
  const selected = names.length ? names : Object.keys(BENCHMARKS);
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

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
