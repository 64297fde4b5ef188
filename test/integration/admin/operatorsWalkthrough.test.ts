/**
 * docs/operators.md shows a tenant's whole life with curl and jq against the operator API. This runs that block as it
 * is written, against the real stack, and checks what it prints: the documentation cannot drift from the behaviour.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { startTestStack, type TestStack } from '../../support/stack';
import { createAdminKey } from '../../support/accounts';

const run = promisify(execFile);
let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack();
});

afterAll(async () => {
  await stack?.stop();
});

function walkthrough(): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'operators.md'), 'utf8');
  const match = /<!-- walkthrough -->\n```sh\n([\s\S]*?)\n```/.exec(doc);
  if (!match) throw new Error('docs/operators.md has no walkthrough block');
  return match[1]!;
}

it("runs docs/operators.md's curl walkthrough as written: sign-up, key, one credit per payment, the daily limit, usage, revoke, audit", async () => {
  const adminKey = await createAdminKey(stack.prisma);
  const { stdout } = await run('bash', ['-eo', 'pipefail', '-c', walkthrough()], {
    env: { PATH: process.env.PATH, GENMEDIA_BASE_URL: stack.url, GENMEDIA_ADMIN_KEY: adminKey },
  });
  const lines = stdout.trim().split('\n');
  const today = new Date().toISOString().slice(0, 10);
  const tomorrow = new Date(`${today}T00:00:00Z`);
  tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
  expect(lines[0]).toMatch(/^account acc_\w+$/);
  expect(lines.slice(1, 3)).toEqual(['{"balanceMicroCents":10000000}', '{"balanceMicroCents":10000000}']);
  expect(lines[3]).toMatch(/^\{"jobId":"job_[^"]+","costMicroCents":45000\}$/);
  expect(lines[4]).toMatch(/^\{"jobId":"job_[^"]+","costMicroCents":45000\}$/);
  expect(JSON.parse(lines[5]!)).toEqual({ code: 'BUDGET_EXCEEDED', details: { limit: 'account_daily', spentMicroCents: 90000, resetsAt: tomorrow.toISOString() } });
  expect(lines.slice(6, 8)).toEqual([
    'day,model,chargedMicroCents,refundedMicroCents,netMicroCents,jobs,refundedJobs\r',
    `${today},pixelforge/forge-pro/text-to-image,90000,0,90000,2,0\r`,
  ]);
  expect(lines[8]).toMatch(/^\{"keyId":"key_\w+","status":"revoked"\}$/);
  expect(lines[9]).toMatch(/^\{"accountId":"acc_\w+","suspended":true\}$/);
  expect(lines.slice(10).map((l) => l.split(' ')[1])).toEqual(['account.update', 'credits.grant', 'account.create']);
});
