/**
 * The production shape of Temporal (the server on PostgreSQL, as `npm run cluster` and the compose file run it),
 * killed in the middle of jobs and started again: every job still finishes, charged exactly once.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { startTemporalServer, temporalCli, type TemporalServer } from '../../support/temporalServer';
import { get, imageJob, post } from '../../integration/jobs/helpers';

const load = createRequire(__filename);
const { SEARCH_ATTRIBUTES } = load('../../../scripts/lib/temporal.js');
const { capture } = load('../../../scripts/lib/proc.js');

const JOBS = 8;
let server: TemporalServer;
let stack: TestStack;

beforeAll(async () => {
  server = await startTemporalServer();
  // 30 s nominal × 0.1: each job renders for about 3 s.
  stack = await startTestStack({
    providers: ['pixelforge'],
    env: { TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: 'default' },
    tuning: { providers: { timeScale: 0.1 } },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await server?.close();
}, 60_000);

describe('the Temporal server on PostgreSQL', () => {
  it('has the search attributes genmedia needs', () => {
    const list = capture(temporalCli(), ['operator', 'search-attribute', 'list', '--namespace', 'default', '--output', 'json', '--address', server.address]);
    const custom = JSON.parse(list.stdout).customAttributes ?? {};
    for (const name of SEARCH_ATTRIBUTES) expect(custom[name], name).toBe('INDEXED_VALUE_TYPE_KEYWORD');
  });

  it('killed in the middle of jobs and started again: every job finishes, charged exactly once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: JOBS });
    const submitted: { jobId: string; costMicroCents: number }[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob({ prompt: `restart ${i}` }));
      expect(res.status).toBe(201);
      submitted.push(res.body);
    }
    // Some jobs are rendering when the server goes away.
    await eventually(async () => ((await stack.prisma.job.count({ where: { accountId: account.accountId, status: 'processing' } })) > 0 ? true : undefined), 30_000, 100);
    await server.stop(0);
    await new Promise((r) => setTimeout(r, 3000));
    await server.start();

    const finals = await eventually(
      async () => {
        const jobs = await Promise.all(submitted.map(async ({ jobId }) => (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body));
        return jobs.every((job) => ['completed', 'failed', 'cancelled'].includes(job.status)) ? jobs : undefined;
      },
      180_000,
      1000,
    );
    expect(finals.map((job) => job.status)).toEqual(Array(JOBS).fill('completed'));

    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId }, orderBy: { id: 'asc' } });
    const charges = ledger.filter((e) => e.kind === 'charge');
    expect(charges.map((e) => e.jobId).sort()).toEqual(submitted.map((s) => s.jobId).sort());
    expect(ledger.filter((e) => e.kind === 'refund')).toEqual([]);
    const total = submitted.reduce((sum, s) => sum + s.costMicroCents, 0);
    const balance = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(Number(balance.balanceMicroCents)).toBe(100_000_000 - total);
  }, 300_000);
});
