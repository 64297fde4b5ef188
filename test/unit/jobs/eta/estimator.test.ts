/** The estimate of a job's start and completion from a snapshot of its provider's line. */
import { describe, expect, it } from 'vitest';
import { dispatchOrder, estimateQueue, runningEstimate, WAIT_SPREAD_SHARE, type QueueSnapshot, type RunTime, type WaitingJob } from '../../../../src/jobs/eta/estimator';

const TWO_SECONDS: RunTime = { p50Seconds: 2, p90Seconds: 3 };

let order = 0;
function waiting(id: string, over: Partial<WaitingJob> = {}): WaitingJob {
  order += 1;
  return { id, priorityKey: 3, fairnessKey: 'acc_a', fairnessWeight: 1, order, runTime: TWO_SECONDS, ...over };
}

const ids = (jobs: { id: string }[]) => jobs.map((j) => j.id);

describe('dispatchOrder', () => {
  it('is first come, first served within one account and priority', () => {
    expect(ids(dispatchOrder([waiting('a1'), waiting('a2'), waiting('a3')]))).toEqual(['a1', 'a2', 'a3']);
  });

  it('puts every job of a lower priority key first, and batch items (key 5) after every interactive job', () => {
    const jobs = [waiting('batch', { priorityKey: 5 }), waiting('normal'), waiting('high', { priorityKey: 2 }), waiting('low', { priorityKey: 4 })];
    expect(ids(dispatchOrder(jobs))).toEqual(['high', 'normal', 'low', 'batch']);
  });

  it("interleaves two accounts of equal weight, whatever the first one's backlog", () => {
    const flood = Array.from({ length: 5 }, (_, i) => waiting(`a${i + 1}`));
    const late = [waiting('b1', { fairnessKey: 'acc_b' }), waiting('b2', { fairnessKey: 'acc_b' })];
    expect(ids(dispatchOrder([...flood, ...late]))).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'a4', 'a5']);
  });

  it('gives an account of weight 3 three jobs for each of an account of weight 1', () => {
    const heavy = Array.from({ length: 6 }, (_, i) => waiting(`h${i + 1}`, { fairnessKey: 'acc_h', fairnessWeight: 3 }));
    const light = Array.from({ length: 3 }, (_, i) => waiting(`l${i + 1}`, { fairnessKey: 'acc_l', fairnessWeight: 1 }));
    // Virtual times: h1..h6 at 1/3 … 2, l1..l3 at 1, 2, 3; ties by admission (the heavy account came first).
    expect(ids(dispatchOrder([...light, ...heavy]))).toEqual(['h1', 'h2', 'h3', 'l1', 'h4', 'h5', 'h6', 'l2', 'l3']);
  });

  it('shares the batch level between accounts by weight too, below the interactive jobs', () => {
    const jobs = [
      waiting('x1', { priorityKey: 5, fairnessKey: 'acc_x' }),
      waiting('x2', { priorityKey: 5, fairnessKey: 'acc_x' }),
      waiting('y1', { priorityKey: 5, fairnessKey: 'acc_y' }),
      waiting('i1', { fairnessKey: 'acc_x' }),
    ];
    expect(ids(dispatchOrder(jobs))).toEqual(['i1', 'x1', 'y1', 'x2']);
  });
});

describe('estimateQueue', () => {
  it('starts a job at once on a free slot, and gives the run as its completion', () => {
    const estimate = estimateQueue({ slots: 2, running: [], waiting: [waiting('only')] }).get('only')!;
    expect(estimate).toMatchObject({ placeInLine: 1, startP50Seconds: 0, startP90Seconds: 0, completionP50Seconds: 2 });
    expect(estimate.completionP90Seconds).toBeCloseTo(3, 6);
  });

  it('grows with the place in line: 50 jobs of 2 s on two slots', () => {
    const flood = Array.from({ length: 50 }, (_, i) => waiting(`j${i + 1}`));
    const estimates = estimateQueue({ slots: 2, running: [], waiting: flood });
    const last = estimates.get('j50')!;
    expect(last.placeInLine).toBe(50);
    // 48 jobs ahead of the last two, two at a time: 24 rounds of 2 s.
    expect(last.startP50Seconds).toBe(48);
    expect(last.completionP50Seconds).toBe(50);
    const medians = flood.map((j) => estimates.get(j.id)!.completionP50Seconds);
    expect(medians).toEqual([...medians].sort((a, b) => a - b));
    // The spread of 24 runs on one slot, not 24 times the spread of one, and a share of the wait common to all of them.
    const oneRunSpread = 1 / 1.2816;
    const spread = Math.sqrt(24 * oneRunSpread ** 2 + (WAIT_SPREAD_SHARE * 48) ** 2);
    expect(last.startP90Seconds - last.startP50Seconds).toBeCloseTo(1.2816 * spread, 6);
    expect(last.completionP90Seconds).toBeLessThan(50 + 24 * 1);
    expect(last.completionP90Seconds).toBeGreaterThan(last.completionP50Seconds);
  });

  it('counts what is left of the running jobs, and at least a tenth of a run that is past its median', () => {
    const snapshot: QueueSnapshot = {
      slots: 2,
      running: [
        { runTime: { p50Seconds: 10, p90Seconds: 14 }, elapsedSeconds: 4 },
        { runTime: { p50Seconds: 10, p90Seconds: 14 }, elapsedSeconds: 30 },
      ],
      waiting: [waiting('next'), waiting('after')],
    };
    const estimates = estimateQueue(snapshot);
    expect(estimates.get('next')!.startP50Seconds).toBeCloseTo(1, 6);
    expect(estimates.get('after')!.startP50Seconds).toBeCloseTo(3, 6);
    expect(estimates.get('after')!.completionP50Seconds).toBeCloseTo(5, 6);
  });

  it('moves everyone up when a job ahead is cancelled, and a slot added makes every start earlier', () => {
    const flood = Array.from({ length: 10 }, (_, i) => waiting(`k${i + 1}`));
    const before = estimateQueue({ slots: 2, running: [], waiting: flood });
    const afterCancel = estimateQueue({ slots: 2, running: [], waiting: flood.filter((j) => j.id !== 'k2') });
    expect(afterCancel.get('k10')!.placeInLine).toBe(before.get('k10')!.placeInLine - 1);
    expect(afterCancel.get('k10')!.startP50Seconds).toBeLessThanOrEqual(before.get('k10')!.startP50Seconds);
    const moreSlots = estimateQueue({ slots: 3, running: [], waiting: flood });
    const fewerSlots = estimateQueue({ slots: 1, running: [], waiting: flood });
    for (const job of flood) {
      expect(moreSlots.get(job.id)!.startP50Seconds).toBeLessThanOrEqual(before.get(job.id)!.startP50Seconds);
      expect(fewerSlots.get(job.id)!.startP50Seconds).toBeGreaterThanOrEqual(before.get(job.id)!.startP50Seconds);
    }
    expect(fewerSlots.get('k10')!.startP50Seconds).toBe(18);
  });

  it('lets running jobs beyond a lost slot finish before anything waiting starts', () => {
    const running = [0, 0, 0].map(() => ({ runTime: TWO_SECONDS, elapsedSeconds: 0 }));
    const estimate = estimateQueue({ slots: 2, running, waiting: [waiting('w')] }).get('w')!;
    // Slots free at 2 and 2; the third running job takes one until 4; the waiting job starts at 2.
    expect(estimate.startP50Seconds).toBe(2);
    expect(estimateQueue({ slots: 1, running, waiting: [waiting('w1')] }).get('w1')!.startP50Seconds).toBe(6);
  });

  it('follows each job ahead with its own run: a slow model ahead delays a quick one', () => {
    const slow = waiting('slow', { runTime: { p50Seconds: 60, p90Seconds: 90 } });
    const quick = waiting('quick');
    const estimates = estimateQueue({ slots: 1, running: [], waiting: [slow, quick] });
    expect(estimates.get('quick')!.startP50Seconds).toBe(60);
    expect(estimates.get('quick')!.completionP50Seconds).toBe(62);
  });

  it("places a light account's job ahead of a heavy backlog of another", () => {
    const flood = Array.from({ length: 20 }, (_, i) => waiting(`f${i + 1}`, { fairnessKey: 'acc_flood' }));
    const other = waiting('now-and-then', { fairnessKey: 'acc_other' });
    const estimate = estimateQueue({ slots: 2, running: [], waiting: [...flood, other] }).get('now-and-then')!;
    expect(estimate.placeInLine).toBe(2);
    expect(estimate.startP50Seconds).toBe(0);
  });
});

describe('runningEstimate', () => {
  it('is what remains of the run, with place 0', () => {
    expect(runningEstimate({ runTime: { p50Seconds: 10, p90Seconds: 16 }, elapsedSeconds: 4 })).toEqual({
      placeInLine: 0,
      startP50Seconds: 0,
      startP90Seconds: 0,
      completionP50Seconds: 6,
      completionP90Seconds: 12,
    });
  });
});
