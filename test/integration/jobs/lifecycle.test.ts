import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { get, imageJob, post } from './helpers';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'] });
});

afterAll(async () => {
  await stack?.stop();
});

async function balance(accountId: string): Promise<bigint> {
  return (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

describe('job lifecycle over HTTP', () => {
  it('submits, charges, runs on the provider worker and completes with signed PNG outputs', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob({ num_images: '2' }));
    expect(submitted.status).toBe(201);
    expect(submitted.body).toMatchObject({ status: 'pending', costMicroCents: 90_000 });
    expect(submitted.body.requestId).toBe(submitted.headers.get('x-request-id'));
    const jobId: string = submitted.body.jobId;
    expect(submitted.headers.get('location')).toBe(`/v1/jobs/${jobId}`);
    expect(Date.parse(submitted.body.estimatedCompletionTime)).toBeGreaterThan(Date.now() - 1000);
    expect(await balance(account.accountId)).toBe(910_000n);

    const done = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
      return res.body.status === 'completed' ? res : undefined;
    });
    expect(done.body).toMatchObject({ jobId, progress: 100, model: 'pixelforge/forge-pro/text-to-image', costMicroCents: 90_000, refundedMicroCents: 0, error: null });
    expect(done.body.completedAt).not.toBeNull();
    expect(done.body.startedAt).not.toBeNull();
    expect(done.body.outputs).toHaveLength(2);
    for (const output of done.body.outputs) {
      expect(output).toMatchObject({ contentType: 'image/png' });
      expect(output.width).toBeGreaterThan(0);
      expect(output.height).toBe(output.width);
      const file = await fetch(output.url);
      expect(file.status).toBe(200);
      const bytes = Buffer.from(await file.arrayBuffer());
      expect(bytes.subarray(1, 4).toString()).toBe('PNG');
      expect(bytes.length).toBe(output.sizeBytes);
    }
    expect(await balance(account.accountId)).toBe(910_000n);

    // Operators find the job in Temporal by account and status.
    const query = `AccountId = '${account.accountId}' AND JobStatus = 'completed'`;
    const found = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of stack.api.deps.temporal.workflow.list({ query })) ids.push(wf.workflowId);
      return ids.length > 0 ? ids : undefined;
    });
    expect(found).toEqual([`job:${jobId}`]);

    const listed = await get(`${stack.url}/v1/jobs`, account.apiKey);
    expect(listed.body.jobs).toEqual([
      {
        jobId,
        status: 'completed',
        progress: 100,
        model: 'pixelforge/forge-pro/text-to-image',
        createdAt: done.body.createdAt,
        completedAt: done.body.completedAt,
        // A finished job has no estimate left in a listing.
        estimatedCompletionTimeP90: null,
        estimatedStartTime: null,
        placeInLine: null,
      },
    ]);
  });

  it('fails a job on a permanent provider error, records the error and refunds in full', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob({ prompt: 'a cat [fail:permanent]' }));
    expect(submitted.status).toBe(201);
    const jobId: string = submitted.body.jobId;
    const failed = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
      return res.body.status === 'failed' ? res : undefined;
    });
    expect(failed.body.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect(failed.body).toMatchObject({ refundedMicroCents: 45_000, outputs: [] });
    expect(await balance(account.accountId)).toBe(1_000_000n);
    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
    expect(ledger.map((e) => [e.kind, e.amountMicroCents])).toEqual([
      ['charge', -45_000n],
      ['refund', 45_000n],
    ]);
  });
});
