import { describe, expect, it } from 'vitest';
import { planRouteOrder, type RouteStats } from '../../../src/jobs/routePlanning';
import type { RoutePlan, RoutePolicy } from '../../../src/contracts/workflows/job';

const health: RoutePolicy['health'] = { windowSeconds: 300, minAttempts: 5, maxFailureRate: 0.5, maxStartSeconds: 60 };
const route = (providerId: string, listPriceMicroCents?: number): RoutePlan => ({
  providerId,
  taskQueue: `provider.${providerId}`,
  expectedProcessingSeconds: 10,
  ...(listPriceMicroCents === undefined ? {} : { listPriceMicroCents }),
});
const stats = (entries: Record<string, Partial<RouteStats>>) =>
  new Map(Object.entries(entries).map(([id, s]) => [id, { ended: 0, failed: 0, p90StartSeconds: null, medianCompleteSeconds: null, ...s }]));

describe('planRouteOrder', () => {
  const routes = [route('fal', 30_000), route('replicate', 20_000), route('runway')];

  it('keeps the catalog order by default', () => {
    expect(planRouteOrder(routes, { choose: 'order', health }, new Map())).toEqual({ order: [0, 1, 2], unhealthy: [] });
  });

  it('orders by list price, routes without one last', () => {
    expect(planRouteOrder(routes, { choose: 'price', health }, new Map()).order).toEqual([1, 0, 2]);
  });

  it('orders by observed median time to complete, routes never seen last', () => {
    const observed = stats({ fal: { medianCompleteSeconds: 40 }, runway: { medianCompleteSeconds: 12 } });
    expect(planRouteOrder(routes, { choose: 'speed', health }, observed).order).toEqual([2, 0, 1]);
  });

  it('moves a route whose recent attempts mostly failed after the healthy ones, but keeps it as a last resort', () => {
    const plan = planRouteOrder(routes, { choose: 'order', health }, stats({ fal: { ended: 6, failed: 4 } }));
    expect(plan.order).toEqual([1, 2, 0]);
    expect(plan.unhealthy).toEqual([{ providerId: 'fal', reason: '4 of its last 6 attempts failed' }]);
  });

  it('judges nobody on too few attempts, and moves a route slow to start', () => {
    expect(planRouteOrder(routes, { choose: 'order', health }, stats({ fal: { ended: 2, failed: 2 } })).order).toEqual([0, 1, 2]);
    const slow = planRouteOrder(routes, { choose: 'order', health }, stats({ replicate: { p90StartSeconds: 95.4 } }));
    expect(slow.order).toEqual([0, 2, 1]);
    expect(slow.unhealthy).toEqual([{ providerId: 'replicate', reason: 'its attempts took 95 s to start (p90)' }]);
  });
});
