/**
 * The layers declared in .dependency-cruiser.cjs hold: no import cycle, between modules or between the folders of src/,
 * no module outside a layer, no import from a layer into one above it (the features ordered among themselves), the API
 * apart from the activities and the activities from every other program, the CLI apart from the workers, no import of
 * the SDK but by the CLI. The same rules are run over a small tree of deliberate mistakes, to show that they catch each
 * kind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config';

const CONFIG = path.join(REPO_ROOT, '.dependency-cruiser.cjs');
// The layers as the configuration declares them (a CommonJS module, read as dependency-cruiser reads it).
const { layers: LAYERS } = require(CONFIG) as { layers: { name: string; paths: string[] }[] };

// dependency-cruiser's helpers that read its configuration and a tsconfig as its command line does; ES modules whose
// types this project's CommonJS resolution does not reach, hence the typed dynamic imports.
const extractDepcruiseOptions = async (file: string) =>
  ((await import('dependency-cruiser/config-utl/extract-depcruise-options' as string)) as { default: (file: string) => Promise<IConfiguration['options']> }).default(file);
const extractTSConfig = async (file: string) =>
  ((await import('dependency-cruiser/config-utl/extract-ts-config' as string)) as { default: (file: string) => Record<string, unknown> }).default(file);

/**
 * The folder of a module of src/ as the layers see it: its first folder under src/ (a file directly in src/ counts as
 * one), within the module's layer, so the seed (src/db/seed.ts, a program) is not the database layer's src/db/. The
 * layer's name comes after a space, which `shown` drops.
 */
function folderOf(file: string): string | undefined {
  const folder = /^src\/([^/]+?)(?:\.ts)?(?:\/|$)/.exec(file)?.[1];
  if (folder === undefined) return undefined;
  const layer = LAYERS.find((l) => l.paths.some((p) => new RegExp(p).test(file)));
  return `src/${folder} ${layer?.name ?? ''}`;
}

const shown = (folder: string) => folder.slice(0, folder.indexOf(' '));

/**
 * The cycles between the folders of src/, which dependency-cruiser's rules cannot see (they are about modules): one
 * cycle per strongly connected set of folders, from the first folder of the set by name, with an import per step.
 */
function folderCycles(result: ICruiseResult): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const module of result.modules) {
    const from = folderOf(module.source);
    if (from === undefined) continue;
    for (const dependency of module.dependencies) {
      const to = folderOf(dependency.resolved);
      if (to === undefined || to === from) continue;
      const out = edges.get(from) ?? edges.set(from, new Map()).get(from)!;
      if (!out.has(to)) out.set(to, `${module.source} → ${dependency.resolved}`);
    }
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (folder: string) => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(folder, Math.min(low.get(folder)!, index.get(next)!));
    }
    if (low.get(folder) === index.get(folder)) {
      const component = stack.splice(stack.indexOf(folder));
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const folder of [...edges.keys()].sort()) if (!index.has(folder)) visit(folder);
  return components.map((component) => {
    // The shortest way from the first folder back to itself, within its component.
    const start = component[0]!;
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0 && !cameFrom.has(start)) {
      const folder = queue.shift()!;
      for (const next of [...(edges.get(folder)?.keys() ?? [])].sort()) {
        if (!component.includes(next) || cameFrom.has(next)) continue;
        cameFrom.set(next, folder);
        queue.push(next);
      }
    }
    const cycle = [start];
    for (let folder = cameFrom.get(start)!; folder !== start; folder = cameFrom.get(folder)!) cycle.unshift(folder);
    cycle.unshift(start);
    const steps = cycle.slice(1).map((to, i) => edges.get(cycle[i]!)!.get(to)!);
    return `no-folder-cycle: ${cycle.map(shown).join(' → ')} (${steps.join(', ')})`;
  });
}

async function violations(root: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const cwd = process.cwd();
  process.chdir(root); // rules and results speak of paths relative to the tree cruised
  try {
    const tsConfig = await extractTSConfig(path.join(root, 'tsconfig.json'));
    const { output } = await cruise(['src', 'workflows', 'activities'].filter((dir) => fs.existsSync(dir)), { ...options, validate: true }, {}, { tsConfig });
    const result = output as ICruiseResult;
    return [...result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`), ...folderCycles(result)];
  } finally {
    process.chdir(cwd);
  }
}

describe('layers (.dependency-cruiser.cjs)', () => {
  it('hold for the code: no cycle between modules or folders, every module in a layer, no import into a layer above', async () => {
    expect(await violations(REPO_ROOT)).toEqual([]);
  }, 120_000);

  const mistakes = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-layers-'));
  afterAll(() => fs.rmSync(mistakes, { recursive: true, force: true }));

  it('refuse an import into a layer above or a higher feature, a cycle of modules or of folders, a program importing another it may not, a folder outside every layer and the service on its own SDK', async () => {
    const write = (file: string, code: string) => {
      fs.mkdirSync(path.dirname(path.join(mistakes, file)), { recursive: true });
      fs.writeFileSync(path.join(mistakes, file), code);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'commonjs', moduleResolution: 'node', strict: true } }));
    write('src/jobs/store.ts', `export const store = 1;\n`);
    write('src/shared/vocabulary.ts', `import type { store } from '../jobs/store';\nexport type Store = typeof store;\n`);
    write('src/contracts/http/jobs.ts', `import { store } from '../../jobs/store';\nexport const schema = store;\n`);
    write('src/jobs/a.ts', `import { b } from './b';\nexport const a = () => b;\n`);
    write('src/jobs/b.ts', `import { a } from './a';\nexport const b = () => a;\n`);
    write('src/jobs/usesApi.ts', `import { app } from '../api/app';\nexport const x = app;\n`);
    write('src/api/app.ts', `export const app = 1;\n`);
    write('src/elsewhere/thing.ts', `import { store } from '../jobs/store';\nexport const thing = store;\n`);
    write('clients/typescript/src/index.ts', `export const formatDollars = (n: number) => String(n);\n`);
    write('src/jobs/usesSdk.ts', `import { formatDollars } from '../../clients/typescript/src/index';\nexport const price = formatDollars(1);\n`);
    write('src/cli/usesSdk.ts', `import { formatDollars } from '../../clients/typescript/src/index';\nexport const price = formatDollars(1);\n`);
    // Two folders of one layer that use each other, with no cycle between modules.
    write('src/catalog/x.ts', `import { y } from '../providers/y';\nexport const x = y;\n`);
    write('src/providers/y.ts', `import { z } from '../catalog/z';\nexport const y = z;\n`);
    write('src/catalog/z.ts', `export const z = 1;\n`);
    // Each tier of the features importing the one above it, and the platform a feature.
    write('src/accounts/usesJobs.ts', `import { store } from '../jobs/store';\nexport const inFlight = store;\n`);
    write('src/outputs/store.ts', `export const outputs = 1;\n`);
    write('src/jobs/usesOutputs.ts', `import { outputs } from '../outputs/store';\nexport const stored = outputs;\n`);
    write('src/webhooks/signing.ts', `export const sign = 1;\n`);
    write('src/outputs/usesWebhooks.ts', `import { sign } from '../webhooks/signing';\nexport const signed = sign;\n`);
    write('src/observability/usesJobs.ts', `import { store } from '../jobs/store';\nexport const counted = store;\n`);
    // A dialect's catalog entry, read by the catalog, belongs to the catalog's tier: it may not import its own dialect.
    write('src/dialects/openai/service.ts', `export const service = 1;\n`);
    write('src/dialects/openai/catalogSchema.ts', `import { service } from './service';\nexport const entry = service;\n`);
    // A feature's tuning: the platform may import it, the vocabulary may not, and it imports nothing of its feature.
    write('src/jobs/tuning.ts', `import { store } from './store';\nexport const JOBS_TUNING = { admissionTimeoutMs: store };\n`);
    write('src/observability/usesTuning.ts', `import { JOBS_TUNING } from '../jobs/tuning';\nexport const tuned = JOBS_TUNING;\n`);
    write('src/shared/usesTuning.ts', `import { JOBS_TUNING } from '../jobs/tuning';\nexport const tuned = JOBS_TUNING;\n`);
    // Programs importing programs they may not.
    write('activities/jobs.ts', `export const activities = 1;\n`);
    write('src/workers/main.ts', `export const worker = 1;\n`);
    write('src/cli/main.ts', `export const cli = 1;\n`);
    write('src/api/usesActivities.ts', `import { activities } from '../../activities/jobs';\nexport const run = activities;\n`);
    write(
      'activities/usesPrograms.ts',
      `import { app } from '../src/api/app';\nimport { cli } from '../src/cli/main';\nimport { worker } from '../src/workers/main';\nexport const all = [app, cli, worker];\n`,
    );
    write('src/cli/usesWorkers.ts', `import { worker } from '../workers/main';\nexport const started = worker;\n`);

    expect((await violations(mistakes)).sort()).toEqual(
      [
        'contracts-imports-no-layer-above: src/contracts/http/jobs.ts → src/jobs/store.ts',
        'shared-imports-no-layer-above: src/shared/vocabulary.ts → src/jobs/store.ts',
        'no-circular: src/jobs/a.ts → src/jobs/b.ts',
        'jobs-feature-imports-no-layer-above: src/jobs/usesApi.ts → src/api/app.ts',
        'api-imported-by-no-one: src/jobs/usesApi.ts → src/api/app.ts',
        'in-a-layer: src/elsewhere/thing.ts → src/jobs/store.ts',
        'service-imports-no-sdk: src/jobs/usesSdk.ts → clients/typescript/src/index.ts',
        'no-folder-cycle: src/catalog → src/providers → src/catalog (src/catalog/x.ts → src/providers/y.ts, src/providers/y.ts → src/catalog/z.ts)',
        'base-features-imports-no-layer-above: src/accounts/usesJobs.ts → src/jobs/store.ts',
        'jobs-feature-imports-no-layer-above: src/jobs/usesOutputs.ts → src/outputs/store.ts',
        'output-features-imports-no-layer-above: src/outputs/usesWebhooks.ts → src/webhooks/signing.ts',
        'platform-imports-no-layer-above: src/observability/usesJobs.ts → src/jobs/store.ts',
        'base-features-imports-no-layer-above: src/dialects/openai/catalogSchema.ts → src/dialects/openai/service.ts',
        'tuning-imports-no-layer-above: src/jobs/tuning.ts → src/jobs/store.ts',
        'shared-imports-no-layer-above: src/shared/usesTuning.ts → src/jobs/tuning.ts',
        'api-imports-no-activities: src/api/usesActivities.ts → activities/jobs.ts',
        'activities-import-no-program: activities/usesPrograms.ts → src/api/app.ts',
        'activities-import-no-program: activities/usesPrograms.ts → src/cli/main.ts',
        'activities-import-no-program: activities/usesPrograms.ts → src/workers/main.ts',
        'api-imported-by-no-one: activities/usesPrograms.ts → src/api/app.ts',
        'cli-imports-no-workers: src/cli/usesWorkers.ts → src/workers/main.ts',
      ].sort(),
    );
  }, 120_000);
});
