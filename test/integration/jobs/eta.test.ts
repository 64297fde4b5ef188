/**
 * The submit's estimate on the real stack: a flood onto a provider with two slots (jobs of about 3 s) is promised
 * times that grow with each job's place in its provider's line, which the last job's real completion bears out, where
 * the catalog's time alone would have promised every job 3 s. The provider worker's slots are what the estimate counts.
 * While jobs wait, the line's watcher moves them up as the jobs ahead start or are cancelled, and counts the slots of
 * a worker process that joins the line.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { providerTaskQueue } from '../../../src/shared/temporal';
import { get, post, request } from '../../support/api';
import { sigkill, spawnProviderWorker } from '../../support/processes';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { TEXT_TO_IMAGE } from './helpers';

const SLOTS = 2;
const FLOOD = 10;
/** The built-in provider's nominal 30 s × this: each job runs about 3 s. */
const TIME_SCALE = 0.1;
const RUN_SECONDS = 30 * TIME_SCALE;

interface Submitted {
  jobId: string;
  sentAt: number;
  estimatedCompletionTime: string;
  estimatedCompletionTimeP90: string | null;
  estimatedStartTime: string | null;
  placeInLine: number | null;
}

describe('the estimate at submit', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ tuning: { providers: { timeScale: TIME_SCALE } } });
  }, 120_000);
  afterAll(async () => stack?.stop());

  it('grows with the place in line on a provider with two slots, and holds for the last job of the flood', async () => {
    // The stack's own task queue for the provider: its line, whatever other files' stacks run on the database.
    const taskQueue = providerTaskQueue('pixelforge', stack.config.temporal.providerTaskQueuePrefix);
    const worker = await stack.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: SLOTS });
    await eventually(async () => {
      const rows = await stack.prisma.providerSlots.findMany({ where: { taskQueue } });
      return rows.reduce((sum, r) => sum + r.slots, 0) === SLOTS ? rows : undefined;
    }, 10_000, 50, 'the worker reported its slots');

    const account = await createTestAccount(stack.prisma, { maxConcurrentJobs: 100 });
    const submitted: Submitted[] = [];
    for (let i = 0; i < FLOOD; i += 1) {
      const sentAt = Date.now();
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: `in line ${i}` } });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      submitted.push({ ...res.body, sentAt });
    }

    for (const job of submitted) {
      expect(job.placeInLine).toBeGreaterThanOrEqual(1);
      expect(Date.parse(job.estimatedStartTime!)).toBeLessThanOrEqual(Date.parse(job.estimatedCompletionTime));
      expect(Date.parse(job.estimatedCompletionTimeP90!)).toBeGreaterThan(Date.parse(job.estimatedCompletionTime));
    }
    const completions = submitted.map((j) => Date.parse(j.estimatedCompletionTime));
    for (let i = 2; i < FLOOD; i += 1) {
      // Two slots: each job is promised about one run after the job two places ahead of it. Each API read of the line
      // counts what the running jobs have left, so promises read a moment apart differ by less than a whole run.
      expect(completions[i]! - completions[i - 2]!, `job ${i}`).toBeGreaterThanOrEqual(RUN_SECONDS * 1000 * 0.6);
    }
    const last = submitted[FLOOD - 1]!;
    const promisedSeconds = (Date.parse(last.estimatedCompletionTime) - last.sentAt) / 1000;
    // Eight jobs ahead of the last two, two at a time: about four runs before it starts.
    expect(promisedSeconds).toBeGreaterThanOrEqual(3.5 * RUN_SECONDS);

    // While it waits, the line's watcher moves it up as the jobs ahead of it start, and keeps its estimate whole.
    const moved = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${last.jobId}`, account.apiKey);
      return res.body.status === 'pending' && res.body.placeInLine < last.placeInLine! ? res.body : undefined;
    }, 30_000, 100, `the last job moved up from place ${last.placeInLine}`);
    expect(moved.placeInLine).toBeGreaterThanOrEqual(1);
    expect(Date.parse(moved.estimatedStartTime)).toBeLessThanOrEqual(Date.parse(moved.estimatedCompletionTime));
    expect(Date.parse(moved.estimatedCompletionTimeP90)).toBeGreaterThan(Date.parse(moved.estimatedCompletionTime));
    const running = await eventually(async () => {
      const res = await get(`${stack.url}/v1/jobs/${last.jobId}`, account.apiKey);
      return res.body.status === 'processing' ? res.body : undefined;
    }, 60_000, 100, 'the last job started');
    expect(running.placeInLine).toBe(0);

    const done = await eventually(async () => {
      const job = await stack.prisma.job.findUnique({ where: { id: last.jobId } });
      return job?.status === 'completed' ? job : undefined;
    }, 120_000, 200, 'the last job completed');
    const actualSeconds = (done.completedAt!.getTime() - last.sentAt) / 1000;
    expect(actualSeconds / promisedSeconds, `promised ${promisedSeconds} s, took ${actualSeconds} s`).toBeGreaterThan(0.5);
    expect(actualSeconds / promisedSeconds, `promised ${promisedSeconds} s, took ${actualSeconds} s`).toBeLessThan(2);
    const detail = await get(`${stack.url}/v1/jobs/${last.jobId}`, account.apiKey);
    expect(detail.body).toMatchObject({ status: 'completed', placeInLine: null, estimatedStartTime: null, estimatedCompletionTimeP90: null });

    // The catalog shows what the route really took beside the version's processingSeconds: every file's runs of the
    // version on pixelforge count there (one database), at this stack's time scale or another's.
    await eventually(async () => ((await stack.prisma.job.count({ where: { accountId: account.accountId, status: 'completed' } })) === FLOOD ? true : undefined), 30_000, 200, 'the whole flood completed');
    const model = await request(`${stack.url}/v1/models/${TEXT_TO_IMAGE}`, { headers: { 'x-api-key': account.apiKey } });
    const route = model.body.versions[0].routes.find((r: { provider: string }) => r.provider === 'pixelforge');
    expect(route.observedRuns).toBeGreaterThanOrEqual(FLOOD);
    expect(route.observedP50Seconds).toBeGreaterThan(0);
    expect(route.observedP50Seconds).toBeLessThan(RUN_SECONDS * 2);
    expect(route.observedP90Seconds).toBeGreaterThanOrEqual(route.observedP50Seconds);
    expect(model.body.versions[0].processingSeconds).toBe(30);

    await worker.stop();
    expect(await stack.prisma.providerSlots.count({ where: { taskQueue } })).toBe(0);
  }, 180_000);

  it('moves the jobs behind a cancelled one up, and counts the slots of a worker that joins the line', async () => {
    // Jobs of the built-in provider's nominal 30 s: the first one holds the only slot for the whole test.
    const slow = await startTestStack({ tuning: { providers: { timeScale: 1 } } });
    let second: ChildProcess | undefined;
    try {
      const taskQueue = providerTaskQueue('pixelforge', slow.config.temporal.providerTaskQueuePrefix);
      const slots = () => slow.prisma.providerSlots.findMany({ where: { taskQueue } }).then((rows) => rows.reduce((sum, r) => sum + r.slots, 0));
      await slow.workers.startProviderWorker('pixelforge', { maxConcurrentJobs: 1 });
      await eventually(async () => ((await slots()) === 1 ? true : undefined), 10_000, 50, 'the first worker reported its slot');

      const account = await createTestAccount(slow.prisma, { maxConcurrentJobs: 100 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const res = await post(`${slow.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: `slow ${i}` } });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
        ids.push(res.body.jobId);
      }
      const detailOfLast = async () => (await get(`${slow.url}/v1/jobs/${ids[4]}`, account.apiKey)).body;
      // One running, three ahead of the last.
      const before = await eventually(async () => {
        const job = await detailOfLast();
        return job.placeInLine === 4 ? job : undefined;
      }, 15_000, 100, 'the last job at place 4');

      const cancelled = await post(`${slow.url}/v1/jobs/${ids[2]}/cancel`, account.apiKey, {});
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      const afterCancel = await eventually(async () => {
        const job = await detailOfLast();
        return job.placeInLine === 3 ? job : undefined;
      }, 10_000, 100, 'the last job moved up to place 3');
      expect(Date.parse(afterCancel.estimatedStartTime)).toBeLessThan(Date.parse(before.estimatedStartTime) - 20_000);

      // A second worker process takes the next job at once and runs beside the first: the last job now waits for one
      // slot of two to free, not for every job ahead on one.
      second = spawnProviderWorker(slow.config, 'pixelforge', { PROVIDER_CONCURRENCY: '1' });
      const afterSlot = await eventually(async () => {
        const job = await detailOfLast();
        return job.placeInLine === 2 ? job : undefined;
      }, 15_000, 100, 'the last job at place 2 beside two slots');
      expect(await slots()).toBe(2);
      expect(Date.parse(afterSlot.estimatedStartTime)).toBeLessThan(Date.parse(afterCancel.estimatedStartTime) - 20_000);

      // The listing shows the same place and estimate.
      const listed = await get(`${slow.url}/v1/jobs?status=pending`, account.apiKey);
      expect(listed.body.jobs.find((j: { jobId: string }) => j.jobId === ids[4])).toMatchObject({ placeInLine: 2, estimatedStartTime: expect.any(String), estimatedCompletionTimeP90: expect.any(String) });
      // Its events told each move as it happened: places that only go down, with the estimate beside each.
      const events = (await get(`${slow.url}/v1/jobs/${ids[4]}/events`, account.apiKey)).body.events as { type: string; placeInLine: number | null; estimatedStartTime: string | null }[];
      const moves = events.filter((e) => e.type === 'job.progress');
      expect(moves.length).toBeGreaterThanOrEqual(1);
      const places = [events[0]!.placeInLine!, ...moves.map((e) => e.placeInLine!)];
      expect(places.every((place, i) => i === 0 || place <= places[i - 1]!), `places ${places.join(' → ')}`).toBe(true);
      expect(places.at(-1)).toBeLessThan(places[0]!);
      for (const move of moves) expect(move.estimatedStartTime).toEqual(expect.any(String));
    } finally {
      if (second) await sigkill(second);
      await slow.stop();
    }
  }, 120_000);
});
