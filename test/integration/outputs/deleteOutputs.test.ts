/**
 * deleteJobOutputs on the real PostgreSQL and MinIO: the `job.outputs_deleted` events it writes for a whole batch in
 * one statement are the events the `job_events` trigger writes for one row, numbered without a gap in each account's
 * sequence, announced on the `job_events` channel, and the jobs' earlier events no longer hold the output keys.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteJobOutputs } from '../../../src/outputs/storing/deleteOutputs';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from '../../support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ workflowWorker: false });
}, 60_000);

afterAll(async () => {
  await stack?.stop();
});

/** A completed job of `account` with one output object in MinIO; its `job.created` event holds the output. */
async function completedJob(account: TestAccount): Promise<{ id: string; key: string }> {
  const id = `job_${randomUUID().replaceAll('-', '')}`;
  const key = `${id}/0.png`;
  const { storage } = stack.api.deps;
  await storage.client.putObject(storage.outputsBucket, key, Buffer.from('png'), 3, { 'Content-Type': 'image/png' });
  await stack.prisma.$executeRaw`
    INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                      estimated_completion_time, created_at, updated_at, completed_at, progress, outputs, retention_seconds,
                      outputs_retained_until, stored_output_bytes, stored_output_count)
    VALUES (${id}, ${account.accountId}, 'pixelforge/forge-pro/text-to-image', 'pixelforge/forge-pro/text-to-image', 'v1',
            'pixelforge', 'completed', '{"prompt":"x"}'::jsonb, 1000, now(), now(), now(), now(), 100,
            jsonb_build_array(jsonb_build_object('key', ${key}::text, 'contentType', 'image/png', 'sizeBytes', 3)), 3600,
            now() - interval '1 second', 3, 1)`;
  return { id, key };
}

interface EventRow {
  job_id: string;
  account_id: string;
  account_sequence: bigint;
  sequence: number;
  type: string;
  [column: string]: unknown;
}

async function eventsOf(jobIds: string[]): Promise<EventRow[]> {
  return stack.prisma.$queryRaw<EventRow[]>`
    SELECT * FROM job_events WHERE job_id = ANY(${jobIds}::text[]) ORDER BY account_id, account_sequence`;
}

describe('deleteJobOutputs', () => {
  it('writes one job.outputs_deleted event per job, numbered without a gap in each account, and notifies each account', async () => {
    const [a, b] = [await createTestAccount(stack.prisma), await createTestAccount(stack.prisma)];
    const jobs = [await completedJob(a), await completedJob(b), await completedJob(a), await completedJob(a), await completedJob(b)];
    const listener = new pg.Client({ connectionString: stack.config.database.url });
    await listener.connect();
    const notified: string[] = [];
    listener.on('notification', (message) => notified.push(message.payload ?? ''));
    await listener.query('LISTEN job_events');
    try {
      const deleted = await deleteJobOutputs(stack.api.deps, jobs.map((job) => job.id), 'retention');
      expect(deleted.map((job) => job.jobId).sort()).toEqual(jobs.map((job) => job.id).sort());
      await eventually(async () => (notified.includes(a.accountId) && notified.includes(b.accountId) ? true : undefined), 10_000);
    } finally {
      await listener.end();
    }

    const { storage } = stack.api.deps;
    for (const job of jobs) expect(await storage.stat(storage.outputsBucket, job.key)).toBeNull();
    const events = await eventsOf(jobs.map((job) => job.id));
    for (const account of [a, b]) {
      const own = events.filter((event) => event.account_id === account.accountId);
      // job.created then job.outputs_deleted for each job: 1..2n in the account's sequence, none twice, none missing.
      expect(own.map((event) => Number(event.account_sequence))).toEqual(own.map((_, n) => n + 1));
      const counter = await stack.prisma.accountEventSequence.findUniqueOrThrow({ where: { accountId: account.accountId } });
      expect(Number(counter.lastSequence)).toBe(own.length);
    }
    for (const job of jobs) {
      const own = events.filter((event) => event.job_id === job.id);
      expect(own.map((event) => event.type)).toEqual(['job.created', 'job.outputs_deleted']);
      const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: job.id } });
      expect(own[1].sequence).toBe(row.eventSequence);
      // The earlier event no longer names the deleted object.
      expect(own[0].outputs).toEqual([]);
    }
  });

  it('writes the same event the trigger writes for a job whose outputs go one row at a time', async () => {
    const account = await createTestAccount(stack.prisma);
    const [inBulk, byTrigger] = [await completedJob(account), await completedJob(account)];
    await deleteJobOutputs(stack.api.deps, [inBulk.id], 'client');
    await stack.prisma.$executeRaw`
      UPDATE jobs SET outputs = '[]'::jsonb, outputs_deleted_at = now(), outputs_deleted_reason = 'client',
                      stored_output_bytes = 0, stored_output_count = 0, updated_at = now()
      WHERE id = ${byTrigger.id}`;

    const events = (await eventsOf([inBulk.id, byTrigger.id])).filter((event) => event.type === 'job.outputs_deleted');
    expect(events).toHaveLength(2);
    // What differs between two jobs made a moment apart: their ids, numbers and times, each checked against the job.
    const comparable = async ({ job_id, account_sequence: _seq, created_at: _created, outputs_deleted_at, outputs_retained_until, ...rest }: EventRow) => {
      const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: job_id } });
      expect(outputs_deleted_at).toEqual(row.outputsDeletedAt);
      expect(outputs_retained_until).toEqual(row.outputsRetainedUntil);
      return rest;
    };
    const [bulk, trigger] = [events.find((e) => e.job_id === inBulk.id)!, events.find((e) => e.job_id === byTrigger.id)!];
    expect(await comparable(bulk)).toEqual(await comparable(trigger));
    expect(bulk).toMatchObject({ outputs_deleted_reason: 'client', outputs: null, status: 'completed' });
  });
});
