/**
 * What an account keeps in our storage, on the real stack: jobs run to completion by the pixelforge worker and a
 * file uploaded with a presigned PUT, measured by GET /v1/account, the operator's usage report (JSON and CSV) and the
 * API's stored-bytes gauges, each checked against the objects MinIO holds. Deleting a job's outputs (as the retention
 * sweep does, through deleteJobOutputs) takes them out of every figure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteJobOutputs } from '../../../src/outputs/storing/deleteOutputs';
import type { JobOutput } from '../../../src/shared/jobs';
import { createAdminKey } from '../../support/accounts';
import { bearer, get, post } from '../../support/api';
import { scrape, valueOf } from '../../support/prometheusText';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { imageJob } from '../jobs/helpers';
import { presign, putBytes } from '../uploads/uploadTestEnv';

let stack: TestStack;
let adminKey: string;

beforeAll(async () => {
  // Every scrape samples the stored bytes afresh.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { observability: { storedUsageSampleMs: 1 } } });
  adminKey = await createAdminKey(stack.prisma);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

async function completedJob(account: TestAccount, prompt: string, numImages: string): Promise<string> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob({ prompt, num_images: numImages }));
  expect(submitted.status).toBe(201);
  const jobId: string = submitted.body.jobId;
  const job = await eventually(async () => {
    const res = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
    return ['completed', 'failed', 'cancelled'].includes(res.body.status) ? res.body : undefined;
  }, 30_000);
  expect(job.status).toBe('completed');
  return jobId;
}

/** The sizes MinIO reports for the job's output objects. */
async function storedOutputSizes(jobId: string): Promise<number[]> {
  const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
  const { storage } = stack.workers;
  return Promise.all(
    (row.outputs as unknown as JobOutput[]).map(async (output) => {
      const stat = await storage.stat(storage.outputsBucket, output.key);
      expect(stat, output.key).not.toBeNull();
      return stat!.size;
    }),
  );
}

async function uploadedFile(account: TestAccount, bytes: Buffer): Promise<string> {
  const { status, json } = await presign(stack.url, account.apiKey, { filename: 'face.png', contentType: 'image/png' });
  expect(status).toBe(200);
  expect((await putBytes(json.data.uploadUrl, 'image/png', bytes)).status).toBe(200);
  const fileId: string = json.data.fileId;
  await eventually(async () => {
    const res = await get(`${stack.url}/v1/uploads/${fileId}`, account.apiKey);
    return res.body.data?.status === 'uploaded' ? true : undefined;
  }, 15_000);
  return fileId;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

describe('bytes and objects in storage', () => {
  it('GET /v1/account counts the outputs of completed jobs and the uploaded files, as MinIO holds them, until they are deleted', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const empty = await get(`${stack.url}/v1/account`, account.apiKey);
    expect(empty.status).toBe(200);
    expect(empty.body.storage).toEqual({ bytes: 0, objects: 0, outputBytes: 0, outputObjects: 0, uploadBytes: 0, uploadObjects: 0 });

    const first = await completedJob(account, 'a lighthouse', '2');
    const second = await completedJob(account, 'a harbour', '1');
    const upload = Buffer.alloc(4_321, 7);
    await uploadedFile(account, upload);
    const firstSizes = await storedOutputSizes(first);
    const secondSizes = await storedOutputSizes(second);
    expect(firstSizes).toHaveLength(2);
    expect(secondSizes).toHaveLength(1);
    const outputBytes = sum([...firstSizes, ...secondSizes]);
    expect(outputBytes).toBeGreaterThan(0);

    const stored = await get(`${stack.url}/v1/account`, account.apiKey);
    expect(stored.body.storage).toEqual({
      bytes: outputBytes + upload.length,
      objects: 4,
      outputBytes,
      outputObjects: 3,
      uploadBytes: upload.length,
      uploadObjects: 1,
    });

    // Another account's files are not this one's.
    const other = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    await completedJob(other, 'someone else', '1');
    expect((await get(`${stack.url}/v1/account`, account.apiKey)).body.storage.bytes).toBe(outputBytes + upload.length);

    const deleted = await deleteJobOutputs(stack.workers, [first], 'retention');
    expect(deleted).toEqual([{ jobId: first, accountId: account.accountId, bytes: BigInt(sum(firstSizes)), objects: 2 }]);
    const after = await get(`${stack.url}/v1/account`, account.apiKey);
    expect(after.body.storage).toEqual({
      bytes: sum(secondSizes) + upload.length,
      objects: 2,
      outputBytes: sum(secondSizes),
      outputObjects: 1,
      uploadBytes: upload.length,
      uploadObjects: 1,
    });
  }, 90_000);

  it("the operator's usage report has each account's stored bytes and objects, in JSON and CSV", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const jobId = await completedJob(account, 'a lighthouse for the report', '2');
    const upload = Buffer.alloc(1_000, 1);
    await uploadedFile(account, upload);
    const bytes = sum(await storedOutputSizes(jobId)) + upload.length;
    const charged = (await stack.prisma.ledgerEntry.findFirstOrThrow({ where: { jobId, kind: 'charge' } })).amountMicroCents;

    const byAccount = await get(`${stack.url}/v1/admin/usage?groupBy=account&accountId=${account.accountId}`, adminKey);
    expect(byAccount.status).toBe(200);
    expect(byAccount.body.rows).toEqual([
      { accountId: account.accountId, chargedMicroCents: -Number(charged), refundedMicroCents: 0, netMicroCents: -Number(charged), jobs: 1, refundedJobs: 0, storedBytes: bytes, storedObjects: 3 },
    ]);
    expect(byAccount.body.totals).toMatchObject({ storedBytes: bytes, storedObjects: 3, jobs: 1 });

    // Not grouped: the totals carry it. Grouped by more than the account: only the totals (bytes are not per day).
    const totals = await get(`${stack.url}/v1/admin/usage?accountId=${account.accountId}`, adminKey);
    expect(totals.body.totals).toMatchObject({ storedBytes: bytes, storedObjects: 3 });
    const byDay = await get(`${stack.url}/v1/admin/usage?groupBy=day,account&accountId=${account.accountId}`, adminKey);
    expect(byDay.body.rows).toHaveLength(1);
    expect(byDay.body.rows[0]).not.toHaveProperty('storedBytes');
    expect(byDay.body.totals).toMatchObject({ storedBytes: bytes, storedObjects: 3 });

    // A range without any of the account's charges still lists what it keeps stored.
    const quiet = await get(`${stack.url}/v1/admin/usage?groupBy=account&accountId=${account.accountId}&from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z`, adminKey);
    expect(quiet.body.rows).toEqual([
      { accountId: account.accountId, chargedMicroCents: 0, refundedMicroCents: 0, netMicroCents: 0, jobs: 0, refundedJobs: 0, storedBytes: bytes, storedObjects: 3 },
    ]);

    const csv = await fetch(`${stack.url}/v1/admin/usage?groupBy=account&accountId=${account.accountId}&format=csv`, { headers: bearer(adminKey) });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(await csv.text()).toBe(
      'accountId,chargedMicroCents,refundedMicroCents,netMicroCents,jobs,refundedJobs,storedBytes,storedObjects\r\n' +
        `${account.accountId},${-Number(charged)},0,${-Number(charged)},1,0,${bytes},3\r\n`,
    );
    const csvByDay = await fetch(`${stack.url}/v1/admin/usage?groupBy=day&accountId=${account.accountId}&format=csv`, { headers: bearer(adminKey) });
    expect((await csvByDay.text()).split('\r\n')[0]).toBe('day,chargedMicroCents,refundedMicroCents,netMicroCents,jobs,refundedJobs');

    // Every account's stored bytes: the report over all accounts lists this one with the same figure.
    const all = await get(`${stack.url}/v1/admin/usage?groupBy=account`, adminKey);
    expect(all.body.rows.find((row: { accountId: string }) => row.accountId === account.accountId)).toMatchObject({ storedBytes: bytes, storedObjects: 3 });
    expect(all.body.totals.storedBytes).toBe(sum(all.body.rows.map((row: { storedBytes: number }) => row.storedBytes)));
  }, 90_000);

  it('the API exports the bytes and objects in storage as gauges, equal to what the job and upload records add up to', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const jobId = await completedJob(account, 'a lighthouse for the gauge', '1');
    const [size] = await storedOutputSizes(jobId);

    /**
     * Independently of the gauge's query: the outputs listed on completed jobs stored through completion, and the
     * uploads recorded as uploaded. Other test files write completed rows directly (fixtures with outputs listed but
     * nothing in storage and no stored counts): those are not in storage and are left out.
     */
    async function recorded() {
      const jobs = await stack.prisma.job.findMany({
        where: { status: 'completed', outputsDeletedAt: null, storedOutputCount: { gt: 0 } },
        select: { outputs: true },
      });
      const outputs = jobs.flatMap((job) => (Array.isArray(job.outputs) ? (job.outputs as unknown as JobOutput[]) : []));
      // A video's Content Credentials are a sidecar manifest: an object of its own in storage.
      const manifests = outputs.filter((o) => o.manifestKey);
      const uploads = await stack.prisma.upload.findMany({ where: { status: 'uploaded' }, select: { sizeBytes: true } });
      return {
        outputBytes: sum(outputs.map((o) => o.sizeBytes)) + sum(manifests.map((o) => o.manifestSizeBytes ?? 0)),
        outputObjects: outputs.length + manifests.length,
        uploadBytes: sum(uploads.map((u) => Number(u.sizeBytes ?? 0))),
        uploadObjects: uploads.length,
      };
    }
    async function gaugesMatchRecords() {
      const before = await recorded();
      const samples = await scrape(`${stack.url}/metrics`);
      const after = await recorded();
      const gauges = {
        outputBytes: valueOf(samples, 'genmedia_stored_output_bytes'),
        outputObjects: valueOf(samples, 'genmedia_stored_output_objects'),
        uploadBytes: valueOf(samples, 'genmedia_stored_upload_bytes'),
        uploadObjects: valueOf(samples, 'genmedia_stored_upload_objects'),
      };
      // Other test files change storage too: a figure is only compared when nothing moved around the scrape.
      return JSON.stringify(before) === JSON.stringify(after) ? { gauges, records: before } : undefined;
    }

    // The gauges are sampled: a job completed by another file just before a scrape shows in the next sample.
    let seen: Awaited<ReturnType<typeof gaugesMatchRecords>>;
    const matching = async () => {
      seen = (await gaugesMatchRecords()) ?? seen;
      return seen && JSON.stringify(seen.gauges) === JSON.stringify(seen.records) ? seen : undefined;
    };
    const withJob = (await eventually(matching, 30_000).catch(() => seen))!;
    expect(withJob.gauges).toEqual(withJob.records);
    expect(withJob.gauges.outputBytes).toBeGreaterThanOrEqual(size!);

    await deleteJobOutputs(stack.workers, [jobId], 'retention');
    const withoutJob = await eventually(gaugesMatchRecords, 20_000);
    expect(withoutJob.gauges).toEqual(withoutJob.records);
  }, 90_000);
});
