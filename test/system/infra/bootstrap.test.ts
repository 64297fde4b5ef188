import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = path.resolve(__dirname, '../../..');

interface BootstrapResult {
  postgresBinDir: string | null;
  temporalCli: string;
  minio: string;
  composeCli?: string;
  c2paNode: string;
  installed: string[];
  cached: string[];
  elapsedMs: number;
}

function runBootstrap(): { result: BootstrapResult; output: string; wallMs: number } {
  // Without DATABASE_URL the bootstrap also checks the PostgreSQL server, as `npm run dev` does on a fresh machine.
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const started = Date.now();
  const run = spawnSync(process.execPath, ['scripts/run.js', 'bootstrap', '--json', '--for-tests'], {
    cwd: REPO_ROOT,
    env,
    encoding: 'utf8',
    timeout: 20 * 60_000,
  });
  const wallMs = Date.now() - started;
  expect(run.status, run.stderr).toBe(0);
  const lines = run.stdout.trim().split('\n');
  return { result: JSON.parse(lines[lines.length - 1]) as BootstrapResult, output: run.stdout, wallMs };
}

function version(binary: string, args: string[]): string {
  const run = spawnSync(binary, args, { encoding: 'utf8' });
  expect(run.status, `${binary} ${args.join(' ')}: ${run.stderr}`).toBe(0);
  return run.stdout;
}

describe('bootstrap', () => {
  it('a second run installs nothing, says everything is cached and is fast', () => {
    runBootstrap(); // may install whatever a fresh machine lacks
    const { result, output, wallMs } = runBootstrap();

    expect(result.installed).toEqual([]);
    expect(output).toContain('everything cached, nothing installed');
    expect(output).not.toMatch(/installing \(/);
    expect(result.cached).toEqual(
      expect.arrayContaining([
        'node packages',
        'prisma client',
        '@contentauth/c2pa-node native part',
        'postgresql server',
        'ffmpeg',
        'chromium',
        'temporal cli',
        'minio',
      ]),
    );
    expect(wallMs).toBeLessThan(15_000);
  });

  it('the cached binaries are the pinned versions and live outside the clone', () => {
    const { result } = runBootstrap();

    expect(version(result.temporalCli, ['--version'])).toMatch(/temporal version (1\.9\.1|1\.5\.1)\b/);
    expect(result.temporalCli.startsWith(REPO_ROOT)).toBe(false);
    expect(result.minio).toContain('minio-v0.0.0-20260212201848-7aac2a2c5b7c');
    expect(result.minio.startsWith(REPO_ROOT)).toBe(false);
    version(result.minio, ['--version']);
    const go = spawnSync('go', ['version', '-m', result.minio], { encoding: 'utf8' });
    if (go.status === 0) {
      expect(go.stdout).toMatch(/mod\s+github\.com\/minio\/minio\s+v0\.0\.0-20260212201848-7aac2a2c5b7c/);
    }
    // The C2PA binding's native part: the binary the npm package ships, loaded where the package looks for it.
    expect(result.c2paNode).toBe(path.join(REPO_ROOT, 'node_modules/@contentauth/c2pa-node/dist/index.node'));
    const probe = spawnSync(process.execPath, ['-e', `process.exit(typeof require(${JSON.stringify(result.c2paNode)}).builderNew === 'function' ? 0 : 1)`]);
    expect(probe.status).toBe(0);
    expect(result.postgresBinDir).not.toBeNull();
    expect(fs.existsSync(path.join(result.postgresBinDir!, 'postgres'))).toBe(true);
  });
});
