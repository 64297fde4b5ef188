import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/config';

const runFile = promisify(execFile);
export const CLI_BIN = path.join(REPO_ROOT, 'bin', 'genmedia.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `genmedia ...` as a user would, with the test environment; resolves with exit code and output, never rejects. */
export async function genmedia(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await runFile(process.execPath, [CLI_BIN, ...args], { cwd: REPO_ROOT, env: process.env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

export interface CliRun extends CliResult {
  /** stdout parsed as JSON, when it is JSON. */
  json: any;
}

/** `genmedia ...` without a terminal, as a script runs it: its own environment, folder and standard input. */
export async function runCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd: string; input?: string }): Promise<CliRun> {
  const result = await new Promise<CliResult>((resolve) => {
    const child = execFile(process.execPath, [CLI_BIN, ...args], { cwd: options.cwd, env: options.env }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(options.input ?? '');
  });
  let json: any;
  try {
    json = JSON.parse(result.stdout);
  } catch {
    json = undefined;
  }
  return { ...result, json };
}
