/**
 * Idempotent submit under faults: a failure to store the answer after the charge never frees the key for a second
 * charge, and a request can only release or complete its own claim of a key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdempotency } from '../../../src/jobs/idempotency';
import { createTestAccount, startTestStack, type TestStack } from '../../support/stack';
import { imageJob, post } from './helpers';

let stack: TestStack;

/** Storing an answer for a key starting with this fails in the database, as a lost connection would. */
const FAULTY_KEY_PREFIX = 'fault-on-complete-';

beforeAll(async () => {
  // A retry waits for the first request's answer for the admission timeout + 2 s before answering from the job.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { jobs: { admissionTimeoutMs: 3000 } } });
  await stack.prisma.$executeRawUnsafe(`
    CREATE OR REPLACE FUNCTION test_fail_idempotency_complete() RETURNS trigger AS $$
    BEGIN
      IF NEW.key LIKE '${FAULTY_KEY_PREFIX}%' AND NEW.response_status IS NOT NULL THEN
        RAISE EXCEPTION 'injected fault: the answer could not be stored';
      END IF;
      RETURN NEW;
    END $$ LANGUAGE plpgsql`);
  await stack.prisma.$executeRawUnsafe(`
    CREATE OR REPLACE TRIGGER test_fail_idempotency_complete BEFORE UPDATE ON idempotency_records
    FOR EACH ROW EXECUTE FUNCTION test_fail_idempotency_complete()`);
});

afterAll(async () => {
  await stack?.prisma.$executeRawUnsafe('DROP TRIGGER IF EXISTS test_fail_idempotency_complete ON idempotency_records');
  await stack?.prisma.$executeRawUnsafe('DROP FUNCTION IF EXISTS test_fail_idempotency_complete()');
  await stack?.stop();
});

describe('idempotent submit with a fault after the charge', () => {
  it('answers the charged job, and a retry with the same key gets the same job, charged once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const key = `${FAULTY_KEY_PREFIX}${randomUUID()}`;
    const first = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob(), { 'Idempotency-Key': key });
    expect(first.status).toBe(201);
    const retry = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob(), { 'Idempotency-Key': key });
    expect(retry.status).toBe(201);
    expect(retry.body.jobId).toBe(first.body.jobId);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');

    const charges = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId, kind: 'charge' } });
    expect(charges.map((c) => c.jobId)).toEqual([first.body.jobId]);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(1);
  });
});

describe('a claim belongs to its request', () => {
  it('a request that lost its claim to a takeover can neither release nor complete the new claim', async () => {
    const account = await createTestAccount(stack.prisma);
    const idempotency = createIdempotency(stack.prisma, { waitMs: 100, staleAfterMs: 0 });
    const key = `claim-${randomUUID()}`;
    expect(await idempotency.begin(account.accountId, key, 'hash', 'job_first')).toEqual({ kind: 'new' });
    // The first request is taken for dead and a second one takes the key over.
    expect(await idempotency.begin(account.accountId, key, 'hash', 'job_second')).toEqual({ kind: 'stale', jobId: 'job_first' });
    expect(await idempotency.restart(account.accountId, key, 'job_first', 'job_second')).toBe(true);

    await idempotency.release(account.accountId, key, 'job_first');
    await idempotency.complete(account.accountId, key, 'job_first', { status: 201, body: { jobId: 'job_first' } });
    const record = await stack.prisma.idempotencyRecord.findUniqueOrThrow({ where: { accountId_key: { accountId: account.accountId, key } } });
    expect(record).toMatchObject({ jobId: 'job_second', responseStatus: null });

    await idempotency.complete(account.accountId, key, 'job_second', { status: 201, body: { jobId: 'job_second' } });
    expect(await stack.prisma.idempotencyRecord.findUniqueOrThrow({ where: { accountId_key: { accountId: account.accountId, key } } })).toMatchObject({
      jobId: 'job_second',
      responseStatus: 201,
    });
  });
});
