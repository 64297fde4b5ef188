/** A job's place in a busy queue: the plan's priority or a lower one asked for, and the account's fair share. */
import { describe, expect, it } from 'vitest';
import { jobScheduling, temporalPriority } from '../../../src/jobs/scheduling';
import { DomainError } from '../../../src/shared/errors';

const refusal = (plan: string, requested: 'low' | 'normal' | 'high') => {
  try {
    jobScheduling({ id: 'acc_1', plan }, requested);
  } catch (err) {
    return err;
  }
  throw new Error(`priority ${requested} was taken on plan ${plan}`);
};

describe('jobScheduling', () => {
  it("defaults to the plan's priority and weight, with the account as the fairness key", () => {
    expect(jobScheduling({ id: 'acc_1', plan: 'business' })).toEqual({ priority: 'normal', fairnessKey: 'acc_1', fairnessWeight: 3 });
    expect(jobScheduling({ id: 'acc_2', plan: 'enterprise' })).toEqual({ priority: 'high', fairnessKey: 'acc_2', fairnessWeight: 3 });
    expect(jobScheduling({ id: 'acc_3', plan: 'retired-plan' })).toEqual({ priority: 'normal', fairnessKey: 'acc_3', fairnessWeight: 1 });
  });

  it("takes the plan's priority or a lower one", () => {
    expect(jobScheduling({ id: 'acc_1', plan: 'enterprise' }, 'high').priority).toBe('high');
    expect(jobScheduling({ id: 'acc_1', plan: 'enterprise' }, 'normal').priority).toBe('normal');
    expect(jobScheduling({ id: 'acc_1', plan: 'standard' }, 'low')).toEqual({ priority: 'low', fairnessKey: 'acc_1', fairnessWeight: 1 });
    expect(jobScheduling({ id: 'acc_1', plan: 'free' }, 'low').priority).toBe('low');
  });

  it("refuses a priority above the plan's with VALIDATION_ERROR naming the field, the plan's priority and the values allowed", () => {
    const err = refusal('standard', 'high');
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'priority', planPriority: 'normal', allowed: ['low', 'normal'] }],
    });
    expect((err as DomainError).message).toMatch(/priority high is above the normal priority of the account's plan; allowed: low, normal/);
    expect(refusal('free', 'normal')).toMatchObject({ details: [{ planPriority: 'low', allowed: ['low'] }] });
    expect(refusal('free', 'high')).toMatchObject({ details: [{ planPriority: 'low', allowed: ['low'] }] });
  });
});

describe('temporalPriority', () => {
  const scheduling = { priority: 'low' as const, fairnessKey: 'acc_1', fairnessWeight: 3 };

  it('gives the priority key and, with fairness on, the fairness key and weight', () => {
    expect(temporalPriority(scheduling, true)).toEqual({ priorityKey: 4, fairnessKey: 'acc_1', fairnessWeight: 3 });
    expect(temporalPriority(scheduling, false)).toEqual({ priorityKey: 4 });
  });

  it('puts a batch item of any priority at the lowest key, below every interactive job, with its account and weight', () => {
    for (const priority of ['high', 'normal', 'low'] as const) {
      expect(temporalPriority({ ...scheduling, priority, batchItem: true }, true)).toEqual({ priorityKey: 5, fairnessKey: 'acc_1', fairnessWeight: 3 });
      expect(temporalPriority({ ...scheduling, priority, batchItem: true }, false)).toEqual({ priorityKey: 5 });
    }
  });
});
