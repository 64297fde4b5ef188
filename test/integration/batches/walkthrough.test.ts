/**
 * docs/batches.md walks through a batch with curl and jq: upload a JSONL file, estimate, submit, wait, results and the
 * ZIP. This runs that block as it is written against the real stack and checks what it prints and leaves behind.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';

const run = promisify(execFile);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { batches: { roundIntervalMs: 200 } } });
});

afterAll(async () => {
  await stack?.stop();
});

function walkthrough(): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'batches.md'), 'utf8');
  const match = /<!-- walkthrough -->\n```sh\n([\s\S]*?)\n```/.exec(doc);
  if (!match) throw new Error('docs/batches.md has no walkthrough block');
  return match[1]!;
}

it("runs docs/batches.md's curl walkthrough as written: upload, estimate, submit, wait, results and the ZIP", async () => {
  const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, maxConcurrentJobs: 10 });
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'batch-walkthrough-'));
  try {
    const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', walkthrough()], {
      cwd,
      env: { PATH: process.env.PATH, GENMEDIA_BASE_URL: stack.url, GENMEDIA_API_KEY: account.apiKey },
      timeout: 90_000,
    });
    expect(stdout.trim().split('\n')).toEqual([
      '{"itemCount":2,"estimatedCostMicroCents":90000}',
      '{"status":"completed","completed":2,"costMicroCents":90000}',
      '{"customId":"front","status":"completed"}',
      '{"customId":"side","status":"completed"}',
    ]);
    const listing = await run('unzip', ['-Z1', path.join(cwd, 'outputs.zip')]);
    expect(listing.stdout.trim().split('\n').sort()).toEqual(['front.png', 'results.jsonl', 'side.png']);
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}, 120_000);
