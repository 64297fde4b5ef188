import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../src/config';

const runFile = promisify(execFile);
const BIN = path.join(REPO_ROOT, 'bin', 'genmedia.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `genmedia ...` as a user would, with the test environment; resolves with exit code and output, never rejects. */
export async function genmedia(...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await runFile(process.execPath, [BIN, ...args], { cwd: REPO_ROOT, env: process.env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
