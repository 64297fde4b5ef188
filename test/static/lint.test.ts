import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../src/config';

const { staleReason } = createRequire(__filename)('../../scripts/lib/build.js') as { staleReason(): string | null };

const run = promisify(execFile);

describe('static checks', () => {
  // The build (this project's global setup, test/support/buildSetup.ts) has type-checked src, workflows and
  // activities as it compiled them; the rest is checked against the declarations it wrote (tsconfig.check.json).
  // The console is a browser project with its own settings (DOM, JSX, bundler resolution).
  it.each([['the project', 'tsconfig.check.json'], ['the console', path.join(REPO_ROOT, 'console')]])('type-checks %s (tsc --noEmit, strict)', async (_name, project) => {
    expect(staleReason(), 'the build this check relies on is not current').toBeNull();
    const tsc = path.join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: REPO_ROOT }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(result).toBe('');
  }, 300_000);

  it('lints clean', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const results = await eslint.lintFiles(['.']);
    const errors = results.flatMap((r) => r.messages.filter((m) => m.severity === 2).map((m) => `${path.relative(REPO_ROOT, r.filePath)}:${m.line} ${m.ruleId} ${m.message}`));
    expect(errors).toEqual([]);
  }, 300_000);

  it('refuses non-deterministic imports in workflows/', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const lint = async (code: string) =>
      (await eslint.lintText(code, { filePath: path.join(REPO_ROOT, 'workflows', 'example.ts') }))[0]!.messages.map((m) => m.ruleId);

    expect(await lint(`import fs from 'node:fs';\nexport const x = fs;\n`)).toContain('@typescript-eslint/no-restricted-imports');
    expect(await lint(`import { Client } from '@temporalio/client';\nexport const x = Client;\n`)).toContain('@typescript-eslint/no-restricted-imports');
    expect(await lint(`import { createActivities } from '../activities';\nexport const x = createActivities;\n`)).toContain('@typescript-eslint/no-restricted-imports');
    expect(await lint(`import type { createActivities } from '../activities';\nimport { proxyActivities } from '@temporalio/workflow';\nexport const a = proxyActivities<ReturnType<typeof createActivities>>({ startToCloseTimeout: '1 minute' });\n`)).toEqual([]);
  });

  it('lets workflows/ import only an allow-list: the Temporal workflow packages, contracts, shared modules, siblings', async () => {
    const eslint = new ESLint({ cwd: REPO_ROOT });
    const lint = async (code: string, file = path.join('workflows', 'example.ts')) =>
      (await eslint.lintText(code, { filePath: path.join(REPO_ROOT, file) }))[0]!.messages.map((m) => m.ruleId);
    const refused = ['@typescript-eslint/no-restricted-imports'];
    for (const module of ['../src/webhooks/deliverySteps', '../src/contracts/http/jobs', '../src/jobs/store', 'zod', 'lodash', '../src/shared/deeper/module']) {
      expect(await lint(`import { x } from '${module}';\nexport const y = x;\n`), module).toEqual(refused);
    }
    const allowed = ['@temporalio/workflow', '@temporalio/common', '../src/contracts/workflows/job', '../src/shared/jobs', './providerStep'];
    for (const module of allowed) expect(await lint(`import { x } from '${module}';\nexport const y = x;\n`), module).toEqual([]);
    // What the workflows import is held to the same rule.
    expect(await lint(`import { x } from '../../db/prisma';\nexport const y = x;\n`, path.join('src', 'contracts', 'workflows', 'example.ts'))).toEqual(refused);
    expect(await lint(`import { x } from '../db/prisma';\nexport const y = x;\n`, path.join('src', 'shared', 'example.ts'))).toEqual(refused);
    expect(await lint(`import { x } from '../../shared/jobs';\nexport const y = x;\n`, path.join('src', 'contracts', 'workflows', 'example.ts'))).toEqual([]);
  });
});
