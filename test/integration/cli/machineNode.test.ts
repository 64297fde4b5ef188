/**
 * `npx genmedia ...` on a machine whose own `node` is older than the project's, as docs/cli.md has a person run it in
 * the checkout: the command's output and nothing else (no npm warning about the engines), from the CLI running on the
 * provided Node, as every npm script of the project does (scripts/lib/reexec.js).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import type { RunningApi } from '../../../src/api/server';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { startTestApi } from '../../support/api';
import { PROVIDED_NODE_VERSION, nodeVersionOf, olderMachineNodes, shellEnv } from '../../support/machineNode';

const older = olderMachineNodes();
const CLI_MAIN = path.join(REPO_ROOT, 'src', 'cli', 'main.ts');

let workDir: string;
let api: RunningApi;
let prisma: PrismaClient;
let account: TestAccount;

beforeAll(async () => {
  if (older.length === 0) return;
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-machine-node-'));
  // Every process of the run notes its Node at exit, and whether it was the one that ran the CLI.
  fs.writeFileSync(
    path.join(workDir, 'note-node.js'),
    `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(path.join(workDir, 'nodes.log'))}, ` +
      `process.version + ' ' + Boolean(require.cache[${JSON.stringify(CLI_MAIN)}]) + '\\n'));\n`,
  );
  prisma = createPrisma(process.env.DATABASE_URL!);
  account = await createTestAccount(prisma);
  api = await startTestApi();
});

afterAll(async () => {
  await api?.stop();
  await prisma?.$disconnect();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/**
 * `npx genmedia ...` in the checkout, with the machine's PATH and an npm cache that has never run it. Asynchronous:
 * the API it talks to runs in this process.
 */
async function npxGenmedia(args: string[]) {
  fs.rmSync(path.join(workDir, 'nodes.log'), { force: true });
  const npmCache = fs.mkdtempSync(path.join(workDir, 'npm-cache-'));
  const env: NodeJS.ProcessEnv = {
    ...shellEnv(),
    npm_config_cache: npmCache,
    npm_config_update_notifier: 'false',
    NODE_OPTIONS: `--require ${path.join(workDir, 'note-node.js')}`,
    GENMEDIA_CONFIG_DIR: fs.mkdtempSync(path.join(workDir, 'config-')),
    GENMEDIA_BASE_URL: api.url,
    GENMEDIA_API_KEY: account.apiKey,
  };
  const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
    execFile('npx', ['genmedia', ...args], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ status: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
  const notes = fs.existsSync(path.join(workDir, 'nodes.log')) ? fs.readFileSync(path.join(workDir, 'nodes.log'), 'utf8') : '';
  const cliNodes = notes.split('\n').filter((line) => line.endsWith(' true')).map((line) => line.split(' ')[0]);
  return { ...run, cliNodes };
}

describe.skipIf(older.length === 0)(`npx genmedia with the machine's Node ${older[0] ? nodeVersionOf(older[0]) : ''} first on PATH`, () => {
  it('prints the help and nothing else, from the CLI on the provided Node', async () => {
    const run = await npxGenmedia(['--help']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: genmedia \[options\] \[command\]/);
    expect(run.stderr).not.toMatch(/EBADENGINE|npm warn|warning/i);
    expect(run.stderr).toBe('');
    expect(run.cliNodes).toEqual([PROVIDED_NODE_VERSION]);
  });

  it('runs a command against the API with only its JSON on stdout and nothing on stderr', async () => {
    const run = await npxGenmedia(['models', 'ls', '--json']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('pixelforge/forge-pro/text-to-image');
    expect(() => JSON.parse(lines[0]!)).not.toThrow();
    expect(run.cliNodes).toEqual([PROVIDED_NODE_VERSION]);
  });
});
