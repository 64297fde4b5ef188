import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceWorkflow } from '../../../workflows/maintenance';
import { ensureMaintenanceSchedule } from '../../../src/workers/maintenanceSchedule';
import { createTestAccount } from '../../support/accounts';
import { startTestStack, type TestStack } from '../../support/stack';

const HOUR = 3600_000;

describe('maintenance', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it('prunes expired idempotency records and stale rate-limit windows, and keeps live ones', async () => {
    const { accountId } = await createTestAccount(stack.prisma);
    const now = Date.now();
    const record = (key: string, expiresAt: number) => ({ accountId, key, requestHash: 'h', expiresAt: new Date(expiresAt) });
    await stack.prisma.idempotencyRecord.createMany({ data: [record('old', now - HOUR), record('live', now + HOUR)] });
    const counter = (windowStart: number) => ({ accountId, scope: 'test', windowStart: new Date(windowStart), count: 1 });
    await stack.prisma.rateLimitCounter.createMany({ data: [counter(now - 3 * 24 * HOUR), counter(now - 60_000)] });

    const result = await stack.api.deps.temporal.workflow.execute(maintenanceWorkflow, {
      taskQueue: stack.config.temporal.jobsTaskQueue,
      workflowId: `maintenance-test-${randomUUID()}`,
    });
    expect(result.idempotencyRecords).toBeGreaterThanOrEqual(1);
    expect(result.rateLimitCounters).toBeGreaterThanOrEqual(1);
    expect((await stack.prisma.idempotencyRecord.findMany({ where: { accountId } })).map((r) => r.key)).toEqual(['live']);
    const counters = await stack.prisma.rateLimitCounter.findMany({ where: { accountId } });
    expect(counters.map((c) => c.windowStart.getTime())).toEqual([now - 60_000]);
  });

  it('prunes upstream callbacks received longer ago than upstreams.callbackRetentionHours, and keeps recent ones', async () => {
    expect(stack.config.upstreams.callbackRetentionHours).toBe(24);
    const upstreamId = `gen-${randomUUID()}`;
    const callback = (callbackId: string, receivedAt: number) => ({ upstream: 'fal', callbackId: `${upstreamId}:${callbackId}`, upstreamId, receivedAt: new Date(receivedAt) });
    const now = Date.now();
    await stack.prisma.upstreamCallback.createMany({ data: [callback('old', now - 25 * HOUR), callback('recent', now - 23 * HOUR)] });

    const result = await stack.api.deps.temporal.workflow.execute(maintenanceWorkflow, {
      taskQueue: stack.config.temporal.jobsTaskQueue,
      workflowId: `maintenance-test-${randomUUID()}`,
    });
    expect(result.upstreamCallbacks).toBeGreaterThanOrEqual(1);
    const kept = await stack.prisma.upstreamCallback.findMany({ where: { upstreamId } });
    expect(kept.map((c) => c.callbackId)).toEqual([`${upstreamId}:recent`]);
  });

  it("prunes Cog predictions no job will read again, their kept webhooks' outputs with them", async () => {
    const id = `pred_${randomUUID()}`;
    const kept = { id, status: 'succeeded', output: ['data:image/png;base64,iVBORw0KGgo='] };
    const lease = { providerId: 'maintenance-cog', serverUrl: `http://gpu-${randomUUID()}.test:5000`, secretHash: new Uint8Array(32), terminal: true, snapshot: kept };
    const live = `pred_${randomUUID()}`;
    await stack.prisma.cogPrediction.createMany({
      data: [
        { id, ...lease, leaseExpiresAt: new Date(Date.now() - 2 * HOUR), releasedAt: new Date(Date.now() - 3 * HOUR) },
        { id: live, ...lease, snapshot: { ...kept, id: live }, leaseExpiresAt: new Date(Date.now() + HOUR), releasedAt: new Date() },
      ],
    });

    const result = await stack.api.deps.temporal.workflow.execute(maintenanceWorkflow, {
      taskQueue: stack.config.temporal.jobsTaskQueue,
      workflowId: `maintenance-test-${randomUUID()}`,
    });
    expect(result.cogPredictions).toBeGreaterThanOrEqual(1);
    const left = await stack.prisma.cogPrediction.findMany({ where: { id: { in: [id, live] } }, select: { id: true } });
    expect(left.map((r) => r.id)).toEqual([live]);
  });

  it('creates the hourly schedule once; a second worker start finds it', async () => {
    const client = stack.api.deps.temporal;
    const scheduleId = `maintenance-test-${randomUUID()}`;
    await ensureMaintenanceSchedule(client, stack.config.temporal.jobsTaskQueue, scheduleId);
    await ensureMaintenanceSchedule(client, stack.config.temporal.jobsTaskQueue, scheduleId);
    const handle = client.schedule.getHandle(scheduleId);
    try {
      const description = await handle.describe();
      expect(description.spec.intervals?.[0]?.every).toBe(HOUR);
      expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'maintenanceWorkflow', taskQueue: stack.config.temporal.jobsTaskQueue });
    } finally {
      await handle.delete();
    }
  });
});
