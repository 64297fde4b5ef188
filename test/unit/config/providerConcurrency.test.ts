/**
 * PROVIDER_CONCURRENCY gives the jobs one provider worker runs at once: a bare number for every provider, overrides
 * per provider, or both; a provider it does not name runs 4.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { providerWorkerLimits } from '../../../src/workers/providerWorker';

const slots = (value: string | undefined, providerId: string) =>
  providerWorkerLimits(loadConfig(value === undefined ? {} : { PROVIDER_CONCURRENCY: value }), providerId).maxConcurrentActivityTaskExecutions;

describe('PROVIDER_CONCURRENCY', () => {
  it('unset: 4 for every provider', () => {
    expect(slots(undefined, 'pixelforge')).toBe(4);
    expect(loadConfig({}).providers.concurrency).toEqual({ default: 4, byProvider: {} });
  });

  it('a bare number: the default of every provider', () => {
    expect(slots('8', 'pixelforge')).toBe(8);
    expect(slots('8', 'lumina')).toBe(8);
  });

  it('a default and overrides, in any order', () => {
    for (const value of ['8,lumina=2', 'lumina=2, 8']) {
      expect(slots(value, 'lumina')).toBe(2);
      expect(slots(value, 'pixelforge')).toBe(8);
    }
  });

  it('overrides alone: the providers it does not name run 4', () => {
    expect(slots('pixelforge=1,lumina=2', 'pixelforge')).toBe(1);
    expect(slots('pixelforge=1,lumina=2', 'lumina')).toBe(2);
    expect(slots('pixelforge=1,lumina=2', 'motionworks')).toBe(4);
  });
});
