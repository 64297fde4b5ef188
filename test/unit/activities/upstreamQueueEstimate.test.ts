/**
 * A generation waiting in an upstream's own queue (fal reports its position): the job's estimated start is when that
 * queue reaches it, at the pace it moved for this generation, and its completion the route's run time after that.
 * The generation store is a stand-in that keeps the first position, as the attempt's row does.
 */
import { describe, expect, it } from 'vitest';
import { createFollower } from '../../../activities/generation/follow';
import type { AttemptKey, GenerationSnapshotRecord, GenerationStore } from '../../../src/jobs/generationStore';
import type { OutputStore } from '../../../src/outputs/storing/outputStore';
import type { GenerationCheck } from '../../../src/shared/upstreams';

const check = { jobId: 'job_q', attemptId: 'job_q.1', providerId: 'fal', modelSlug: 'fal/flux-dev/text-to-image', upstreamId: 'req-1', expectedProcessingSeconds: 8 } as unknown as GenerationCheck;

function follower() {
  let clock = 0;
  let first: { position: number; seenAtMs: number } | null = null;
  const recorded: GenerationSnapshotRecord[] = [];
  const generations = {
    recordSnapshot: async (_key: AttemptKey, snapshot: GenerationSnapshotRecord) => void recorded.push(snapshot),
    noteQueuePosition: async (_key: AttemptKey, position: number) => {
      first ??= { position, seenAtMs: clock };
      return { first, nowMs: clock };
    },
  } as Partial<GenerationStore> as GenerationStore;
  const { follow } = createFollower({ generations, outputs: {} as OutputStore, nextCheckAfter: () => 1000, now: () => clock });
  const at = async (ms: number, snapshot: Parameters<typeof follow>[1]) => {
    clock = ms;
    await follow(check, snapshot, new Date(0), new AbortController().signal);
    return recorded.at(-1)!;
  };
  return { at };
}

describe("a generation in an upstream's queue", () => {
  it('is estimated to start when the queue reaches it, at the pace the queue moved, and to end a run time later', async () => {
    const { at } = follower();
    // First seen at place 6: no pace yet, so no wait is known beyond now.
    const seen = await at(0, { id: 'req-1', state: 'queued', queuePosition: 6 });
    expect(seen).toMatchObject({ queuePosition: 6, estimatedStartTime: new Date(0), estimatedCompletionTime: new Date(8_000) });
    // Place 3 after 6 s: 2 s a place, 6 s left, then the 8 s run.
    const moved = await at(6_000, { id: 'req-1', state: 'queued', queuePosition: 3 });
    expect(moved).toMatchObject({ queuePosition: 3, estimatedStartTime: new Date(12_000), estimatedCompletionTime: new Date(20_000) });
  });

  it('keeps the estimate from its progress once it runs, and leaves the start as it was', async () => {
    const { at } = follower();
    await at(0, { id: 'req-1', state: 'queued', queuePosition: 2 });
    const running = await at(4_000, { id: 'req-1', state: 'running', progress: 50 });
    expect(running.estimatedStartTime).toBeUndefined();
    expect(running.running).toBe(true);
  });

  it("estimates as before for an upstream that reports no position", async () => {
    const { at } = follower();
    const queued = await at(1_000, { id: 'req-1', state: 'queued' });
    expect(queued).toMatchObject({ queuePosition: null, estimatedCompletionTime: new Date(8_000) });
    expect(queued.estimatedStartTime).toBeUndefined();
  });
});
