/**
 * The real Cog prediction server (cog/coglet from PyPI, in the environment the bootstrap caches; COG_PYTHON) running
 * examples/cog, on a free port, in a process group of its own so a test can SIGKILL it with its worker.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';
import { freeLoopbackPort } from '../../src/lib/freePort';
import { eventually } from './eventually';

export const EXAMPLE_DIR = path.join(REPO_ROOT, 'examples', 'cog');

export interface CogServerProcess {
  url: string;
  child: ChildProcess;
  /** Runs the predictor started (one line each in its run log). */
  runs(): string[];
  /** Runs that were canceled. */
  cancellations(): string[];
  health(): Promise<{ status: string }>;
  /** SIGKILL to the server and its worker. */
  kill(): Promise<void>;
}

function lines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

export function cogPython(): string {
  const python = process.env.COG_PYTHON;
  if (!python) throw new Error('COG_PYTHON is not set: run the tests through npm test, whose bootstrap installs cog');
  return python;
}

/** `dir`: another predictor than examples/cog, with its `predict.py` and `.cog/openapi_schema.json`. */
export async function startCogServer(options: { slots?: number; stepSeconds?: number; dir?: string } = {}): Promise<CogServerProcess> {
  const python = cogPython();
  const port = await freeLoopbackPort();
  const runLog = path.join(mkdtempSync(path.join(os.tmpdir(), 'genmedia-cog-')), 'runs.txt');
  const child = spawn(python, ['-m', 'cog.server.http'], {
    cwd: options.dir ?? EXAMPLE_DIR,
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore'],
    env: {
      ...process.env,
      // The server starts its worker with the python3 it finds first on PATH.
      PATH: `${path.dirname(python)}:${process.env.PATH ?? ''}`,
      COG_PREDICT_TYPE_STUB: 'predict.py:Predictor',
      PORT: String(port),
      COG_MAX_CONCURRENCY: String(options.slots ?? 1),
      COG_EXAMPLE_STEP_SECONDS: String(options.stepSeconds ?? 0.1),
      COG_EXAMPLE_RUN_LOG: runLog,
      COG_LOG_LEVEL: 'warn',
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const health = async () => (await (await fetch(`${url}/health-check`)).json()) as { status: string };
  await eventually(async () => ((await health().catch(() => undefined))?.status === 'READY' ? true : undefined), 30_000, 200);
  return {
    url,
    child,
    runs: () => lines(runLog).filter((line) => line.startsWith('started\t')),
    cancellations: () => lines(runLog).filter((line) => line.startsWith('canceled\t')),
    health,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid!, 'SIGKILL');
      await exited;
    },
  };
}
