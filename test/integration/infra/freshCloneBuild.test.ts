/**
 * `npm run build` in a fresh clone, after `npm ci` alone, as docs/deploy.md and the Dockerfile run it: no bootstrap has
 * generated the Prisma client, and the machine's own Node (older than 24 here) comes first on PATH. The clone gets the
 * packages this checkout installed (the Prisma packages copied, so that the client is generated inside the clone, and
 * everything else linked), never its generated client. The build must succeed and what it built must run.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { shellEnv } from '../../support/machineNode';

/** What `npm ci` leaves that a later step makes: the generated client and the bootstrap's stamps. */
const NOT_FROM_NPM_CI = new Set(['.prisma', '.cache']);
/** Copied rather than linked: `prisma generate` writes the client beside the @prisma/client it resolves. */
const COPIED = new Set(['@prisma', 'prisma']);

/** node_modules of the clone: workspace links recreated as they are (relative, so into the clone), the rest linked. */
function mirrorNodeModules(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (NOT_FROM_NPM_CI.has(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isSymbolicLink()) fs.symlinkSync(fs.readlinkSync(source), target);
    else if (COPIED.has(entry.name) || entry.name === '.bin') fs.cpSync(source, target, { recursive: true, verbatimSymlinks: true });
    else if (entry.name.startsWith('@')) mirrorNodeModules(source, target);
    else if (entry.isDirectory()) fs.symlinkSync(source, target);
    else fs.copyFileSync(source, target);
  }
}

/** A person's shell without a database. */
function cloneEnv(): NodeJS.ProcessEnv {
  const env = shellEnv();
  delete env.DATABASE_URL;
  return env;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cloneEnv()): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 540_000 });
}

let workDir: string;
let clone: string;

beforeAll(() => {
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-fresh-clone-'));
  clone = path.join(workDir, 'genmedia');
  const head = run('git', ['rev-parse', 'HEAD'], REPO_ROOT).stdout.trim();
  for (const args of [['clone', '--quiet', '--no-checkout', REPO_ROOT, clone], ['-C', clone, 'checkout', '--quiet', head]]) {
    const git = run('git', args, workDir);
    expect(git.status, git.stderr).toBe(0);
  }
  mirrorNodeModules(path.join(REPO_ROOT, 'node_modules'), path.join(clone, 'node_modules'));
}, 120_000);

afterAll(() => {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

describe('a fresh clone', () => {
  it('builds with npm run build after npm ci alone, and the build runs', () => {
    expect(fs.existsSync(path.join(clone, 'node_modules', '.prisma'))).toBe(false);

    const build = run('npm', ['run', 'build'], clone);
    expect(build.status, `${build.stdout}\n${build.stderr}`).toBe(0);
    expect(`${build.stdout}${build.stderr}`).not.toMatch(/error TS\d+/);
    expect(fs.existsSync(path.join(clone, 'dist', 'build-info.json'))).toBe(true);

    // The built worker starts (and prints its options) on the project's Node, with the client generated in the clone.
    const help = run(process.execPath, ['dist/src/workers/main.js', '--help'], clone, { ...cloneEnv(), PATH: process.env.PATH });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('--provider');
    const models = run(process.execPath, ['-p', "Object.keys(require('@prisma/client').Prisma.ModelName).join(',')"], clone);
    expect(models.status, models.stderr).toBe(0);
    expect(models.stdout.split(',')).toEqual(expect.arrayContaining(['Account', 'Job', 'LedgerEntry']));
    expect(fs.realpathSync(path.join(clone, 'node_modules', '.prisma'))).toBe(path.join(fs.realpathSync(clone), 'node_modules', '.prisma'));
  }, 600_000);
});
