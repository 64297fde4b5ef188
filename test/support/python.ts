/**
 * The Python clients the bootstrap installs (openapi-python-client, standardwebhooks, httpx-sse) in a cached virtual
 * environment, named by PYTHON_CLIENTS_PYTHON. Programs run without blocking this process's event loop: the API under
 * test usually lives in it.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config';

export const PYTHON_PROGRAMS = path.join(REPO_ROOT, 'test', 'interop', 'python');

export function pythonClientsPython(): string {
  const python = process.env.PYTHON_CLIENTS_PYTHON;
  if (!python) throw new Error('PYTHON_CLIENTS_PYTHON is not set: run through npm test, whose bootstrap installs the Python clients');
  return python;
}

export interface ProgramRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command of the virtual environment (`python`, `openapi-python-client`), with its tools first on PATH. */
export function runInPythonEnv(command: string, args: string[], options: { cwd?: string; input?: string; timeoutMs?: number } = {}): Promise<ProgramRun> {
  const bin = path.dirname(pythonClientsPython());
  const env = { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1' };
  return new Promise((resolve) => {
    const child = execFile(
      path.join(bin, command),
      args,
      { cwd: options.cwd, env, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
}

/** Runs one of the programs in test/interop/python with `settings` as JSON on stdin; resolves with its JSON output. */
export async function runPythonProgram(program: string, args: string[], settings: object, timeoutMs?: number): Promise<any> {
  const run = await runInPythonEnv('python', [path.join(PYTHON_PROGRAMS, program), ...args], { input: JSON.stringify(settings), timeoutMs });
  if (run.code !== 0) throw new Error(`${program} exited with ${run.code}\n${run.stderr}\n${run.stdout}`);
  return JSON.parse(run.stdout);
}
