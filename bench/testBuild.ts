/**
 * The benchmarks run the same build the integration tests do (test/support/build.ts): dist/ built once before the
 * first benchmark, every test stack's workflow worker on its one bundle, every spawned process from its JavaScript.
 * The tests learn where the build is from vitest's `inject`; the benchmarks run outside vitest, so this module, which
 * bench/run.ts loads before any other, answers `inject('builtDist')` for them. It must be imported first.
 */
import Module, { createRequire } from 'node:module';
import path from 'node:path';

const repoRequire = createRequire(path.join(__dirname, '..', 'package.json'));
const { ensureBuilt, DIST } = repoRequire('./scripts/lib/build.js') as { ensureBuilt(): Promise<boolean>; DIST: string };

const vitestId = repoRequire.resolve('vitest');
const stub = new Module(vitestId);
stub.exports = { inject: (key: string) => (key === 'builtDist' ? DIST : undefined) };
stub.loaded = true;
repoRequire.cache[vitestId] = stub;

/** dist/ as the tests use it, rebuilt only when the sources changed since the last build. */
export function ensureTestBuild(): Promise<boolean> {
  return ensureBuilt();
}
