/** Plans as data: the shipped plans file, its validation, the fallback for unknown names and Temporal's keys. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { batchItemDiscountPercent, JOB_PRIORITIES, PLAN_NAMES, PLANS_FILE, parsePlans, planPolicy, priorityAbove, temporalPriorityKey } from '../../../src/accounts/plans';

describe('plans', () => {
  it('ships free, standard, business and enterprise, two of one priority with different weights', () => {
    expect(PLAN_NAMES).toEqual(['free', 'standard', 'business', 'enterprise']);
    expect(planPolicy('free')).toMatchObject({ priority: 'low', fairnessWeight: 1 });
    expect(planPolicy('standard')).toMatchObject({ priority: 'normal', fairnessWeight: 1 });
    expect(planPolicy('business')).toMatchObject({ priority: 'normal', fairnessWeight: 3 });
    expect(planPolicy('enterprise')).toMatchObject({ priority: 'high', fairnessWeight: 3 });
  });

  it('gives each plan a default output retention: a day, a week, thirty days, forever', () => {
    expect(PLAN_NAMES.map((name) => planPolicy(name).outputRetentionSeconds)).toEqual([86_400, 604_800, 2_592_000, null]);
  });

  it('gives business and enterprise batch items 25 % and 50 % off, after the account discount, rounded for the customer', () => {
    expect(PLAN_NAMES.map((name) => planPolicy(name).batchDiscountPercent)).toEqual([0, 0, 25, 50]);
    expect(batchItemDiscountPercent({ plan: 'standard', discountPercent: 0 })).toBe(0);
    expect(batchItemDiscountPercent({ plan: 'standard', discountPercent: 15 })).toBe(15);
    expect(batchItemDiscountPercent({ plan: 'enterprise', discountPercent: 10 })).toBe(55);
    // 85 % of 75 % is 63.75 % to pay: 36.25 % off, rounded up to 37.
    expect(batchItemDiscountPercent({ plan: 'business', discountPercent: 15 })).toBe(37);
    expect(batchItemDiscountPercent({ plan: 'enterprise', discountPercent: 100 })).toBe(100);
    expect(parsePlans([{ name: 'standard', description: '', priority: 'normal', fairnessWeight: 1, outputRetentionSeconds: null }])[0]!.batchDiscountPercent).toBe(0);
    expect(() => parsePlans([{ name: 'standard', description: '', priority: 'normal', fairnessWeight: 1, outputRetentionSeconds: null, batchDiscountPercent: 101 }])).toThrow(/batchDiscountPercent/);
  });

  it("gives an account whose plan is no plan the standard plan's policy", () => {
    expect(planPolicy('gold-2019')).toEqual(planPolicy('standard'));
    expect(planPolicy('')).toEqual(planPolicy('standard'));
  });

  it('maps priorities onto Temporal keys around its default of 3, smaller first', () => {
    expect(JOB_PRIORITIES.map(temporalPriorityKey)).toEqual([4, 3, 2]);
    expect(priorityAbove('high', 'normal')).toBe(true);
    expect(priorityAbove('normal', 'normal')).toBe(false);
    expect(priorityAbove('low', 'normal')).toBe(false);
  });

  it('validates a plans file and names every problem', () => {
    expect(parsePlans(JSON.parse(readFileSync(PLANS_FILE, 'utf8')))).toHaveLength(4);
    const badFields = () => parsePlans([{ name: 'free', description: '', priority: 'urgent', fairnessWeight: 0 }]);
    expect(badFields).toThrow(/0\.priority/);
    expect(badFields).toThrow(/0\.fairnessWeight/);
    const badList = () =>
      parsePlans([
        { name: 'free', description: '', priority: 'low', fairnessWeight: 1, outputRetentionSeconds: 3600 },
        { name: 'free', description: '', priority: 'low', fairnessWeight: 2, outputRetentionSeconds: null },
      ]);
    expect(badList).toThrow(/plan free is listed twice/);
    expect(badList).toThrow(/the standard plan is missing/);
    expect(() => parsePlans([{ name: 'standard', description: '', priority: 'normal', fairnessWeight: 1, outputRetentionSeconds: null, extra: true }])).toThrow(/extra/);
    const badRetention = () => parsePlans([{ name: 'standard', description: '', priority: 'normal', fairnessWeight: 1, outputRetentionSeconds: 0 }]);
    expect(badRetention).toThrow(/0\.outputRetentionSeconds/);
    expect(() => parsePlans([{ name: 'standard', description: '', priority: 'normal', fairnessWeight: 1 }])).toThrow(/0\.outputRetentionSeconds/);
  });
});
