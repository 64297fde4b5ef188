/**
 * The layers declared in .dependency-cruiser.cjs hold: no import cycle, no module outside a layer, no import from a
 * layer into one above it, no import of the SDK but by the CLI. The same rules are run over a small tree of deliberate
 * mistakes, to show that they catch each kind.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config';

const CONFIG = path.join(REPO_ROOT, '.dependency-cruiser.cjs');

// dependency-cruiser's helpers that read its configuration and a tsconfig as its command line does; ES modules whose
// types this project's CommonJS resolution does not reach, hence the typed dynamic imports.
const extractDepcruiseOptions = async (file: string) =>
  ((await import('dependency-cruiser/config-utl/extract-depcruise-options' as string)) as { default: (file: string) => Promise<IConfiguration['options']> }).default(file);
const extractTSConfig = async (file: string) =>
  ((await import('dependency-cruiser/config-utl/extract-ts-config' as string)) as { default: (file: string) => Record<string, unknown> }).default(file);

async function violations(root: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(CONFIG);
  const cwd = process.cwd();
  process.chdir(root); // rules and results speak of paths relative to the tree cruised
  try {
    const tsConfig = await extractTSConfig(path.join(root, 'tsconfig.json'));
    const { output } = await cruise(['src', 'workflows', 'activities'].filter((dir) => fs.existsSync(dir)), { ...options, validate: true }, {}, { tsConfig });
    const result = output as ICruiseResult;
    return result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    process.chdir(cwd);
  }
}

describe('layers (.dependency-cruiser.cjs)', () => {
  it('hold for the code: no cycle, every module in a layer, no import into a layer above', async () => {
    expect(await violations(REPO_ROOT)).toEqual([]);
  }, 120_000);

  const mistakes = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-layers-'));
  afterAll(() => fs.rmSync(mistakes, { recursive: true, force: true }));

  it('refuse an import into a layer above, a cycle, a folder outside every layer and the service on its own SDK', async () => {
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

    expect((await violations(mistakes)).sort()).toEqual(
      [
        'contracts-imports-no-layer-above: src/contracts/http/jobs.ts → src/jobs/store.ts',
        'shared-imports-no-layer-above: src/shared/vocabulary.ts → src/jobs/store.ts',
        'no-circular: src/jobs/a.ts → src/jobs/b.ts',
        'features-imports-no-layer-above: src/jobs/usesApi.ts → src/api/app.ts',
        'api-imported-by-no-one: src/jobs/usesApi.ts → src/api/app.ts',
        'in-a-layer: src/elsewhere/thing.ts → src/jobs/store.ts',
        'service-imports-no-sdk: src/jobs/usesSdk.ts → clients/typescript/src/index.ts',
      ].sort(),
    );
  }, 120_000);
});
