/**
 * The API fuzzed from its own OpenAPI document by Schemathesis (examples, coverage, fuzzing and stateful phases, with
 * a real key): no 5xx, no answer outside its documented schema, no timeout. `npm test` runs a few hundred cases;
 * `npm run fuzz` sets GENMEDIA_FUZZ_EXAMPLES higher for thousands.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const EXAMPLES_PER_OPERATION = Number(process.env.GENMEDIA_FUZZ_EXAMPLES ?? '5');
/** `Prefer: wait` may hold an answer up to 60 s by design. */
const REQUEST_TIMEOUT_SECONDS = 70;

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'] });
});

afterAll(() => stack?.stop());

interface FuzzRun {
  code: number;
  output: string;
}

/** Runs `st` without blocking this process's event loop: the API under test lives in it. */
function schemathesis(args: string[]): Promise<FuzzRun> {
  const cli = process.env.SCHEMATHESIS_CLI;
  if (!cli) throw new Error('SCHEMATHESIS_CLI is not set: run through npm test, whose bootstrap installs schemathesis');
  // Its working files (.schemathesis/) go to a scratch folder, not the repository.
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'genmedia-fuzz-'));
  return new Promise((resolve) => {
    execFile(cli, args, { cwd, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (err, stdout, stderr) => {
      rmSync(cwd, { recursive: true, force: true });
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

describe('Schemathesis against /openapi.json', () => {
  it('finds no server error, no undocumented answer and no timeout', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000_000n, maxConcurrentJobs: 10_000 });
    const run = await schemathesis([
      'run',
      `${stack.url}/openapi.json`,
      '--header', `Authorization: Bearer ${account.apiKey}`,
      '--header', `x-api-key: ${account.apiKey}`,
      '--checks', 'not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance',
      '--max-examples', String(EXAMPLES_PER_OPERATION),
      '--request-timeout', String(REQUEST_TIMEOUT_SECONDS),
      '--seed', '20261123',
      '--no-color',
    ]);
    const summary = /Test cases:\s*\n\s*(\d+) generated, (\d+) passed/.exec(run.output);
    console.log(`schemathesis: ${summary ? `${summary[1]} generated, ${summary[2]} passed` : 'no summary'} (${EXAMPLES_PER_OPERATION} examples per operation)`);
    expect(run.code, run.output.slice(-6000)).toBe(0);
    expect(summary, run.output.slice(-3000)).not.toBeNull();
    expect(Number(summary![2])).toBe(Number(summary![1]));
    expect(Number(summary![1])).toBeGreaterThanOrEqual(200);
    expect(run.output).not.toMatch(/timed out|Timeout/i);
  }, 15 * 60_000);
});
