/** Child processes of the benchmarks (the API, a worker) and their memory, read from /proc. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { freeLoopbackPort } from '../src/lib/freePort';

/** How a process runs: its TypeScript sources through tsx (`npm run dev`), or the build in dist/ with plain node. */
export type Runtime = 'tsx' | 'built';

export interface ProcessOptions {
  runtime?: Runtime;
  /** On top of this process's environment. */
  env?: NodeJS.ProcessEnv;
  /** The node (V8) options it runs with; each process kind's own by default. */
  nodeOptions?: string[];
}

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** From spawn to the first 200 of /readyz. */
  startToReadyMs: number;
}

export const RSS_SAMPLES = 5;

/** The V8 options every workflow worker and every API process of the project run with (scripts/lib/app.js says why). */
export const { WORKFLOW_WORKER_NODE_OPTIONS, API_NODE_OPTIONS } = require('../scripts/lib/app') as { WORKFLOW_WORKER_NODE_OPTIONS: string[]; API_NODE_OPTIONS: string[] };

/** The node arguments that run `source` (e.g. src/api/server.ts) the `runtime` way, `nodeOptions` first. */
export function nodeArgs(runtime: Runtime, source: string, args: string[] = [], nodeOptions: string[] = []): string[] {
  return runtime === 'built' ? [...nodeOptions, path.join('dist', source.replace(/\.ts$/, '.js')), ...args] : [...nodeOptions, '--import', 'tsx', source, ...args];
}

export async function startApiProcess({ runtime = 'tsx', env = {}, nodeOptions = API_NODE_OPTIONS }: ProcessOptions = {}): Promise<ApiProcess> {
  const port = await freeLoopbackPort();
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const child = spawn(process.execPath, nodeArgs(runtime, path.join('src', 'api', 'server.ts'), [], nodeOptions), {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), API_HOST: '127.0.0.1', PUBLIC_BASE_URL: url, LOG_LEVEL: 'error', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await until(async () => child.exitCode === null && (await isReady(url)), 60_000, 25);
  } catch (err) {
    await stopProcess(child);
    throw new Error(`the API did not become ready: ${err instanceof Error ? err.message : err}`);
  }
  return { url, child, startToReadyMs: performance.now() - startedAt };
}

async function isReady(url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/readyz`)).ok;
  } catch {
    return false; // not listening yet
  }
}

/** SIGTERM (the process drains and exits), SIGKILL if it has not exited within 10 s. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export function rssKb(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN);
}

/** The CPU time (user and system) the process has used, in ms, from /proc (clock ticks of 10 ms). */
export function cpuMs(child: ChildProcess): number {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function medianRss(child: ChildProcess): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RSS_SAMPLES; i++) {
    if (i > 0) await sleep(400);
    samples.push(rssKb(child));
  }
  return samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
}

export async function until(done: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

export function mb(kb: number): string {
  return `${(kb / 1024).toFixed(1)} MB`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The workflow worker (`src/workers/main.ts --workflows`) as a child process against the benchmark's stack, with the
 * V8 options `npm run dev`, `npm run cluster` and docker-compose.yml give it.
 */
export function startWorkflowWorkerProcess({ runtime = 'tsx', env = {} }: ProcessOptions = {}): ChildProcess {
  return spawn(process.execPath, nodeArgs(runtime, path.join('src', 'workers', 'main.ts'), ['--workflows'], WORKFLOW_WORKER_NODE_OPTIONS), {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A provider worker (`src/workers/main.ts --provider <id>`) as a child process against the benchmark's stack. */
export function startProviderWorkerProcess(providerId: string, { runtime = 'tsx', env = {} }: ProcessOptions = {}): ChildProcess {
  return spawn(process.execPath, nodeArgs(runtime, path.join('src', 'workers', 'main.ts'), ['--provider', providerId]), {
    cwd: REPO_ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
