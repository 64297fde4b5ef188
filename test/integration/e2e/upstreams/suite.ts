/**
 * The same end-to-end checks for every real upstream, through the whole stack (API, Temporal, PostgreSQL,
 * MinIO, provider worker) against the upstream's fake: submit → fake → callback or poll → completed with the
 * outputs in MinIO; a 429 then success; a content-policy refusal refunded in full; a lost callback finished by
 * the safety-net poll; a generation still running at its job's deadline cancelled upstream; a provider worker
 * SIGKILLed mid-generation paying exactly once; bad input never sent.
 */
import type { ChildProcess } from 'node:child_process';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_SEARCH_ATTRIBUTES } from '../../../../src/contracts/workflows/job';
import { jobWorkflowId } from '../../../../src/contracts/workflows/job';
import { createTestAccount, eventually, type RunningWorker, type TestAccount } from '../../../support/stack';
import type { FakeUpstream } from '../../../support/upstreams/types';
import { samplePng } from '../../../support/upstreams/media';
import { get, killWorkerProcess, ledgerOf, post, startE2eStack, startWorkerProcess, uploadFile, waitForFinal, type E2eStack } from '../e2eStack';
import { deadlineMessages } from '../../../../src/shared/deadlines';
import { upstreamModels, type CatalogModelCase } from './catalogInputs';

interface UpstreamModelCase extends Omit<CatalogModelCase, 'build'> {
  /** A valid input; its prompt gets the scenario tokens appended. */
  input: Record<string, unknown>;
}

export interface UpstreamSpec {
  id: string;
  startFake(): Promise<FakeUpstream>;
  /** The upstream sends webhooks (fal, Replicate). */
  callbacks: boolean;
  /**
   * The whole generation happens inside the creating request (OpenAI Images, Imagen): a worker killed during it
   * leaves the outcome unknown, so the job fails refunded instead of paying twice.
   */
  synchronous: boolean;
  /** The upstream reports what a generation cost, so the job stores it. */
  reportsCost?: boolean;
  /** A callback about `upstreamId`, signed as the upstream signs (a fresh delivery id each call). */
  signedCallback?: (fake: FakeUpstream, upstreamId: string) => Promise<{ headers: Record<string, string>; body: string }>;
}

function withTokens(input: Record<string, unknown>, ...tokens: string[]): Record<string, unknown> {
  return { ...input, prompt: `${String(input.prompt)} ${tokens.join(' ')}`.trim() };
}

export function describeUpstreamEndToEnd(spec: UpstreamSpec): void {
  const models = upstreamModels(spec.id);
  describe(`${spec.id} end to end`, () => {
    // The scenarios run on the first model (text-to-image where there is one); every other model runs once.
    const cases: UpstreamModelCase[] = [];
    const main = () => cases[0]!;
    let stack: E2eStack;
    let fake: FakeUpstream;
    let account: TestAccount;
    let providerWorker: RunningWorker;
    const saved: Record<string, string | undefined> = {};

    beforeAll(async () => {
      fake = await spec.startFake();
      for (const [name, value] of Object.entries(fake.env)) {
        saved[name] = process.env[name];
        process.env[name] = value;
      }
      stack = await startE2eStack({
        upstreamCallbacks: spec.callbacks,
        tuning: { upstreams: { pollIntervalMs: 200, safetyNetPollMs: 1500, timeoutSeconds: 120 } },
      });
      providerWorker = await stack.workers.startProviderWorker(spec.id);
      account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n });
      const fileUrl = await uploadFile(stack, account.apiKey, 'scene.png', 'image/png', await samplePng());
      for (const model of models) cases.push({ ...model, input: model.build(fileUrl) });
    }, 120_000);

    it('seeds models of this upstream', () => {
      expect(models.length).toBeGreaterThanOrEqual(1);
    });

    afterAll(async () => {
      await stack?.stop();
      await fake?.close();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });

    async function submit(model: { slug: string }, input: Record<string, unknown>) {
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: model.slug, input });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { jobId: string; costMicroCents: number };
    }

    async function expectStoredOutput(jobId: string, contentType: string): Promise<void> {
      const job = await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey);
      expect(job.body.outputs.length).toBeGreaterThan(0);
      const first = job.body.outputs[0];
      expect(first.contentType).toBe(contentType);
      expect(await stack.storedOutputs(jobId)).toHaveLength(job.body.outputs.length);
      const bytes = Buffer.from(await (await fetch(first.url)).arrayBuffer());
      expect(bytes.length).toBe(first.sizeBytes);
      if (contentType === 'image/png') expect((await sharp(bytes).metadata()).format).toBe('png');
      else expect(bytes.toString('ascii', 4, 8)).toBe('ftyp');
    }

    it('runs a job through the upstream: completed, outputs in MinIO, upstream id on the job and in Temporal', async () => {
      const { jobId } = await submit(main(), main().input);
      const done = await waitForFinal(stack, account.apiKey, jobId);
      expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed', progress: 100, refundedMicroCents: 0 });
      expect(done.upstream?.id).toEqual(expect.any(String));
      await expectStoredOutput(jobId, main().contentType);
      const description = await stack.deps.temporal.workflow.getHandle(jobWorkflowId(jobId)).describe();
      expect(description.typedSearchAttributes.get(JOB_SEARCH_ATTRIBUTES.UpstreamId)).toBe(done.upstream.id);
      const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
      if (spec.reportsCost) expect(Number(row.upstreamCostMicroCents)).toBeGreaterThan(0);
      else expect(row.upstreamCostMicroCents).toBeNull();
      if (spec.callbacks) {
        // Finished by the upstream's webhook, verified and remembered.
        const callbacks = await stack.prisma.upstreamCallback.count({ where: { upstream: spec.id, upstreamId: done.upstream.id } });
        expect(callbacks).toBeGreaterThan(0);
      }
    });

    for (const [index, model] of models.entries()) {
      if (index === 0) continue;
      it(`runs ${model.slug}, its files handed over to the upstream`, async () => {
        const { jobId } = await submit(cases[index]!, cases[index]!.input);
        const done = await waitForFinal(stack, account.apiKey, jobId);
        expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed' });
        await expectStoredOutput(jobId, model.contentType);
      });
    }

    it('waits out a 429 and then succeeds, paying once', async () => {
      const before = fake.paidSubmissions();
      const { jobId } = await submit(main(), withTokens(main().input, '[upstream:rate-limit]'));
      const done = await waitForFinal(stack, account.apiKey, jobId);
      expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
      expect(fake.paidSubmissions() - before).toBe(1);
    });

    it('fails a content-policy refusal with its code and refunds it in full', async () => {
      const { jobId, costMicroCents } = await submit(main(), withTokens(main().input, '[upstream:content-policy]'));
      const done = await waitForFinal(stack, account.apiKey, jobId);
      expect(done).toMatchObject({ status: 'failed', refundedMicroCents: costMicroCents, error: { code: 'CONTENT_POLICY_VIOLATION' } });
      const ledger = await stack.prisma.ledgerEntry.findMany({ where: { jobId }, orderBy: { id: 'asc' } });
      expect(ledger.map((e) => [e.kind, Number(e.amountMicroCents)])).toEqual([
        ['charge', -costMicroCents],
        ['refund', costMicroCents],
      ]);
    });

    it('refuses schema-invalid input at submit without calling the upstream', async () => {
      const requests = fake.requests.length;
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, {
        model: main().slug,
        input: { ...main().input, prompt: '', unexpected_field: 1 },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_INPUT');
      expect(fake.requests.length).toBe(requests);
    });

    if (spec.callbacks) {
      it('finishes a job whose callback was lost with the safety-net poll', async () => {
        const { jobId } = await submit(main(), withTokens(main().input, '[upstream:no-callback]'));
        const done = await waitForFinal(stack, account.apiKey, jobId);
        expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed' });
        expect(await stack.prisma.upstreamCallback.count({ where: { upstream: spec.id, upstreamId: done.upstream.id } })).toBe(0);
      });

      it('answers unsigned, forged and replayed callbacks 401 and unknown ones 404, changing nothing, at its path and its alias', async () => {
        const url = `${stack.url}/v1/providers/${spec.id}/callback`;
        const send = (headers: Record<string, string>, body: string, to = url) => fetch(to, { method: 'POST', headers, body });
        const alias = `${stack.url}/v1/upstreams/${spec.id}/callback`;
        for (const to of [url, alias]) {
          const unsigned = await send({ 'content-type': 'application/json' }, '{"id":"x"}', to);
          expect(unsigned.status).toBe(401);
          expect(((await unsigned.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
        }
        if (!spec.signedCallback) return;

        const unknown = await spec.signedCallback(fake, 'not-a-generation-of-ours');
        expect((await send(unknown.headers, unknown.body)).status).toBe(404);

        const { jobId } = await submit(main(), main().input);
        const done = await waitForFinal(stack, account.apiKey, jobId);
        const before = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
        const genuine = await spec.signedCallback(fake, done.upstream.id);
        const forged = await send(genuine.headers, genuine.body.replace(/}\s*$/, ',"forged":true}'));
        expect(forged.status).toBe(401);
        expect((await send(genuine.headers, genuine.body)).status).toBe(200);
        // The alias is the same endpoint: a replay there is refused as one.
        const replayed = await send(genuine.headers, genuine.body, alias);
        expect(replayed.status).toBe(401);
        const after = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
        expect(after.status).toBe('completed');
        expect(after.updatedAt).toEqual(before.updatedAt);
      });
    }

    if (!spec.synchronous) {
      it('stops a job still running upstream at its deadline: cancelled there, and charged only when the upstream had begun it', async () => {
        const cancelsBefore = fake.cancellations();
        fake.slowMs = 6_000;
        try {
          const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: main().slug, input: withTokens(main().input, '[upstream:slow]'), cancelAfter: 2 });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          const { jobId, costMicroCents } = res.body as { jobId: string; costMicroCents: number };
          const done = await waitForFinal(stack, account.apiKey, jobId, 30_000);
          expect(done).toMatchObject({ status: 'cancelled', error: { code: 'DEADLINE_EXCEEDED' }, outputs: [] });
          await eventually(async () => (fake.cancellations() > cancelsBefore ? true : undefined), 10_000, 50, 'the generation cancelled upstream');
          const [attempt] = await stack.prisma.jobAttempt.findMany({ where: { jobId }, orderBy: { number: 'desc' }, take: 1 });
          // docs/api-reference.md#deadlines: an upstream that had begun the generation bills it; one that only queued it does not.
          const charged = attempt!.runningAt !== null;
          expect(done.refundedMicroCents).toBe(charged ? 0 : costMicroCents);
          expect(done.error.message).toBe(charged ? deadlineMessages.stoppedCharged : deadlineMessages.stoppedRefunded);
          expect(await ledgerOf(stack, jobId)).toEqual(charged ? [['charge', -BigInt(costMicroCents)]] : [['charge', -BigInt(costMicroCents)], ['refund', BigInt(costMicroCents)]]);
        } finally {
          fake.slowMs = 8_000;
        }
      }, 60_000);
    }

    it('survives a provider worker SIGKILLed mid-generation without a second paid generation', async () => {
      // Runs last: from here on the provider's jobs are served by worker processes only.
      await providerWorker.stop();
      const before = fake.paidSubmissions();
      const cancelledBefore = fake.cancellations();
      fake.slowMs = 6_000;
      const { jobId, costMicroCents } = await submit(main(), withTokens(main().input, '[upstream:slow]'));

      let child: ChildProcess = startWorkerProcess(stack, spec.id);
      try {
        // Asynchronous upstreams: killed once the generation runs upstream (its id stored). Synchronous ones: killed
        // while the paid request is in flight.
        await eventually(async () => {
          if (fake.paidSubmissions() === before) return undefined;
          if (spec.synchronous) return true;
          const row = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
          return row.upstreamId ? true : undefined;
        }, 60_000, 50);
        await killWorkerProcess(child);
        child = startWorkerProcess(stack, spec.id);
        const done = await waitForFinal(stack, account.apiKey, jobId, 90_000);
        if (spec.synchronous) {
          // The answer died with the worker: refunded rather than generated again.
          expect(done.status === 'completed' || done.error?.code === 'UPSTREAM_OUTCOME_UNKNOWN', JSON.stringify(done)).toBe(true);
          if (done.status === 'failed') expect(done.refundedMicroCents).toBe(costMicroCents);
        } else {
          expect(done, JSON.stringify(done.error)).toMatchObject({ status: 'completed', refundedMicroCents: 0 });
        }
        expect(fake.paidSubmissions() - before).toBe(1);
        expect(fake.cancellations() - cancelledBefore).toBe(0);
      } finally {
        await killWorkerProcess(child);
        fake.slowMs = 8_000;
      }
    }, 150_000);
  });
}
