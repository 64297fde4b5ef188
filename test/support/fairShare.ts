/**
 * Fair share scenarios on a busy provider queue (pixelforge with 2 slots), shared by the test against the dev server
 * and the one against the Temporal server on PostgreSQL. Orders of starts only, from the jobs' `started_at`.
 */
import { expect } from 'vitest';
import type { TuningOverride } from '../../src/config';
import { post } from './api';
import { createTestAccount, eventually, startTestStack, type TestAccount, type TestStack } from './stack';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';

export const SLOTS = 2;

export async function submitJobs(stack: TestStack, account: TestAccount, count: number, body: Record<string, unknown> = {}): Promise<string[]> {
  const ids: string[] = [];
  // A few at a time, in order, as one client's burst.
  for (let i = 0; i < count; i += 5) {
    const batch = Array.from({ length: Math.min(5, count - i) }, async (_, j) => {
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: `fair share ${i + j}` }, ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.jobId as string;
    });
    ids.push(...(await Promise.all(batch)));
  }
  return ids;
}

/** Every job's account label, in the order the provider started them (started_at, from PostgreSQL). */
export async function startOrder(stack: TestStack, jobs: Record<string, string[]>): Promise<{ tenant: string; startedAt: number }[]> {
  const tenantOf = new Map(Object.entries(jobs).flatMap(([tenant, ids]) => ids.map((id) => [id, tenant] as const)));
  const rows = await eventually(async () => {
    const found = await stack.prisma.job.findMany({ where: { id: { in: [...tenantOf.keys()] } }, select: { id: true, status: true, startedAt: true } });
    return found.every((r) => r.status === 'completed') ? found : undefined;
  }, 120_000, 250, 'every job completed');
  return rows
    .map((r) => ({ tenant: tenantOf.get(r.id)!, startedAt: r.startedAt!.getTime() }))
    .sort((a, b) => a.startedAt - b.startedAt);
}

export async function startedCount(stack: TestStack, ids: string[]): Promise<number> {
  return stack.prisma.job.count({ where: { id: { in: ids }, startedAt: { not: null } } });
}

/**
 * A submits 40 jobs; once the provider has started a few, B submits 5. Returns how many of A's jobs started after B
 * submitted and before B's last job started, how many started after B's last one, and A's backlog when B submitted.
 */
export async function lateTenantScenario(env: NodeJS.ProcessEnv, tuning?: TuningOverride) {
  const stack = await startTestStack({ env, tuning });
  try {
    const a = await createTestAccount(stack.prisma, { plan: 'standard', maxConcurrentJobs: 100 });
    const b = await createTestAccount(stack.prisma, { plan: 'standard', maxConcurrentJobs: 100 });
    const aJobs = await submitJobs(stack, a, 40);
    await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: SLOTS });
    await eventually(async () => ((await startedCount(stack, aJobs)) >= 4 ? true : undefined), 60_000, 50, "A's first jobs started");
    const bSubmittedAt = Date.now();
    const aBacklogAtB = aJobs.length - (await startedCount(stack, aJobs));
    const bJobs = await submitJobs(stack, b, 5);
    const order = await startOrder(stack, { a: aJobs, b: bJobs });
    const bLast = Math.max(...order.filter((s) => s.tenant === 'b').map((s) => s.startedAt));
    const aStarts = order.filter((s) => s.tenant === 'a').map((s) => s.startedAt);
    return {
      aBacklogAtB,
      aBeforeBsLast: aStarts.filter((t) => t >= bSubmittedAt && t < bLast).length,
      aAfterBsLast: aStarts.filter((t) => t > bLast).length,
    };
  } finally {
    await stack.stop();
  }
}
