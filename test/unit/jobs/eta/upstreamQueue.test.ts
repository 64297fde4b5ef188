import { describe, expect, it } from 'vitest';
import { upstreamQueueWaitSeconds } from '../../../../src/jobs/eta/upstreamQueue';

describe('upstreamQueueWaitSeconds', () => {
  it('is nothing once the generation is next or running', () => {
    expect(upstreamQueueWaitSeconds({ position: 8, seenAtMs: 0 }, 0, 60_000)).toBe(0);
  });

  it("waits out the places left at the pace the queue moved since the generation's first position", () => {
    // From place 10 to place 4 in 30 s: 5 s a place, 4 places left.
    expect(upstreamQueueWaitSeconds({ position: 10, seenAtMs: 0 }, 4, 30_000)).toBe(20);
  });

  it('takes each place to last at least as long as the queue has stood still, before it moves', () => {
    expect(upstreamQueueWaitSeconds({ position: 3, seenAtMs: 0 }, 3, 0)).toBe(0);
    expect(upstreamQueueWaitSeconds({ position: 3, seenAtMs: 0 }, 3, 10_000)).toBe(30);
    // A queue that put the generation further back counts as not having moved.
    expect(upstreamQueueWaitSeconds({ position: 2, seenAtMs: 0 }, 5, 4_000)).toBe(20);
  });
});
