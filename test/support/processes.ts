/**
 * The API and the workers as processes of their own, for tests that SIGKILL them: each serves the queues of a
 * test stack's config, and `sigkill` waits until the process is gone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT, type Config, type TuningOverride } from '../../src/config';
import { builtArgs, builtEnv } from './build';
import { eventually } from './eventually';
import { workerProcessEnv } from './stack';

export interface ApiProcess {
  child: ChildProcess;
  url: string;
}

/**
 * The built API (`src/api/server.ts`) on a free port, against the stack's services and queues, `env` on top, with
 * the stack's tuning (`tuning` on top).
 */
export async function spawnApiProcess(config: Config, env: NodeJS.ProcessEnv = {}, tuning?: TuningOverride): Promise<ApiProcess> {
  // A worker's free metrics port would move the API's /metrics off PORT.
  const { METRICS_PORT: _workerMetricsPort, ...stackEnv } = workerProcessEnv(config, tuning);
  const child = spawn(process.execPath, builtArgs(path.join('src', 'api', 'server.ts')), {
    cwd: REPO_ROOT,
    // The line that names the address is logged at info.
    env: builtEnv({ ...stackEnv, PORT: '0', API_HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const output = collectOutput(child);
  const url = await eventually(
    async () => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the API process exited (${child.exitCode ?? child.signalCode})`);
      return /"url":"(http:\/\/127\.0\.0\.1:\d+)".*"msg":"API listening"/.exec(output())?.[1];
    },
    120_000,
    100,
    'the API process listening',
  );
  return { child, url };
}

/** The start of what a child writes to stdout; the rest is dropped so a long test does not grow the buffer. */
function collectOutput(child: ChildProcess): () => string {
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    if (output.length < 100_000) output += chunk.toString('utf8');
  });
  return () => output;
}

/** The workflow worker (`src/workers/main.ts --workflows`) on the stack's queues, `env` and `tuning` on top. */
export function spawnWorkflowWorker(config: Config, env: NodeJS.ProcessEnv = {}, tuning?: TuningOverride): ChildProcess {
  return spawnWorker(config, ['--workflows'], env, 'ignore', tuning);
}

export interface LoggingProcess {
  child: ChildProcess;
  /** The start of its stdout, its log lines at info. */
  output(): string;
}

/** The workflow worker, as `spawnWorkflowWorker` starts it, logging at info to a buffer the test reads. */
export function spawnLoggingWorkflowWorker(config: Config, env: NodeJS.ProcessEnv = {}): LoggingProcess {
  const child = spawnWorker(config, ['--workflows'], { LOG_LEVEL: 'info', ...env }, 'pipe');
  return { child, output: collectOutput(child) };
}

/** The worker of one provider (`src/workers/main.ts --provider <id>`) on the stack's queues, `env` on top. */
export function spawnProviderWorker(config: Config, providerId: string, env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawnWorker(config, ['--provider', providerId], env);
}

/** The built worker, `node` itself running it, so a SIGKILL hits the worker itself. */
function spawnWorker(config: Config, args: string[], env: NodeJS.ProcessEnv, stdout: 'ignore' | 'pipe' = 'ignore', tuning?: TuningOverride): ChildProcess {
  return spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), args), {
    cwd: REPO_ROOT,
    env: builtEnv({ ...workerProcessEnv(config, tuning), ...env }),
    stdio: ['ignore', stdout, 'inherit'],
  });
}

/** SIGTERM, as an operator or Ctrl-C stops it: the process drains and exits. */
export async function sigterm(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export async function sigkill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/**
 * A TCP address that accepts connections and never answers: a Temporal client pointed at it waits on every call, as
 * it would on a server that stopped responding.
 */
export async function silentServer(): Promise<{ address: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
