/**
 * Everything runs on Node 24. `npm test` ran this file through scripts/run.js, which hands an older machine Node over
 * to the provided one (scripts/lib/reexec.js): vitest's fork, a process started as plain `node` (as npm scripts and
 * `#!/usr/bin/env node` scripts are), and the API's metrics all say so; scripts/run.js started on the machine's older
 * Node, if it has one, runs its command on the provided Node.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { startTestApi } from '../../support/api';
import { scrape, type Sample } from '../../support/prometheusText';
import { builtArgs } from '../../support/build';

const REPO_ROOT = path.resolve(__dirname, '../../..');
const nodeRuntime = require('../../../scripts/lib/nodeRuntime') as { MAJOR: number; VERSION: string; BIN_DIR: string };
const PROVIDED_NODE = path.join(nodeRuntime.BIN_DIR, 'node');

const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

function versionOf(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** The machine's own `node` binaries on PATH older than 24 (the provided Node's directory left out). */
function olderMachineNodes(): string[] {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((dir) => dir && path.resolve(dir) !== nodeRuntime.BIN_DIR);
  const found = new Set<string>();
  for (const dir of dirs) {
    const candidate = path.join(dir, 'node');
    if (fs.existsSync(candidate)) found.add(fs.realpathSync(candidate));
  }
  return [...found].filter((node) => majorOf(versionOf(node)) < nodeRuntime.MAJOR);
}

const older = olderMachineNodes();

function nodeVersionInfo(samples: Sample[]): Record<string, string> | undefined {
  return samples.find((s) => s.name === 'genmedia_nodejs_version_info')?.labels;
}

let api: RunningApi | undefined;
let worker: ChildProcess | undefined;

afterAll(async () => {
  await api?.stop();
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await new Promise((r) => worker!.once('exit', r));
  }
});

describe('the Node everything runs on', () => {
  it(`is Node ${nodeRuntime.MAJOR} in vitest's forks, and the provided ${nodeRuntime.VERSION} where the machine's Node is older`, () => {
    expect(majorOf(process.version)).toBeGreaterThanOrEqual(nodeRuntime.MAJOR);
    if (older.length > 0) {
      expect(process.version).toBe(`v${nodeRuntime.VERSION}`);
      expect(fs.realpathSync(process.execPath)).toBe(fs.realpathSync(PROVIDED_NODE));
    }
    // `node` by name, as npm scripts, npx and shebang scripts find it.
    expect(versionOf('node')).toBe(process.version);
  });

  it('is what the API reports in nodejs_version_info', async () => {
    api = await startTestApi();
    const info = nodeVersionInfo(await scrape(`${api.url}/metrics`));
    expect(info).toMatchObject({ version: process.version, major: String(majorOf(process.version)) });
  });

  it('is what a worker process started as `node` reports in nodejs_version_info', async () => {
    worker = spawn('node', builtArgs('src/workers/main.ts', ['--workflows']), {
      cwd: REPO_ROOT,
      env: { ...process.env, METRICS_PORT: '0', TEMPORAL_TASK_QUEUE_PREFIX: `node-${randomUUID()}-`, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const metricsUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the worker did not report its metrics URL within 90 s')), 90_000);
      let buffered = '';
      worker!.stdout!.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const line = buffered.split('\n').find((l) => l.includes('"metrics served"'));
        if (line) {
          clearTimeout(timer);
          resolve(JSON.parse(line).metrics);
        }
      });
      worker!.once('exit', (code) => reject(new Error(`the worker exited with ${code}`)));
    });
    expect(nodeVersionInfo(await scrape(metricsUrl))).toMatchObject({ version: process.version, major: String(majorOf(process.version)) });
    // Stopped while it is still starting (its build not yet claimed as current), it ends its waits and exits.
    const exited = new Promise<number | null>((resolve) => worker!.once('exit', resolve));
    worker.kill('SIGTERM');
    const stoppedWithin = await Promise.race([exited.then(() => 'exited'), new Promise((r) => setTimeout(r, 30_000, 'still running'))]);
    expect(stoppedWithin).toBe('exited');
  }, 120_000);

  it.skipIf(older.length === 0)("hands scripts/run.js started on the machine's older Node over to the provided one", () => {
    const machineNode = older[0];
    const env = { ...process.env, PATH: (process.env.PATH ?? '').split(path.delimiter).filter((dir) => path.resolve(dir) !== nodeRuntime.BIN_DIR).join(path.delimiter) };
    const run = spawnSync(machineNode, ['scripts/run.js', 'bootstrap', '--json'], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 10 * 60_000 });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trim().split('\n');
    const result = JSON.parse(lines[lines.length - 1]) as { node: { version: string; execPath: string }; installed: string[] };
    expect(result.node.version).toBe(`v${nodeRuntime.VERSION}`);
    expect(fs.realpathSync(result.node.execPath)).toBe(fs.realpathSync(PROVIDED_NODE));
    expect(result.installed).not.toContain('node');
    expect(run.stdout).toContain(`(provided; this machine has ${versionOf(machineNode)})`);
  }, 600_000);
});
