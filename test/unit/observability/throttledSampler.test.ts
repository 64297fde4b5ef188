import { describe, expect, it } from 'vitest';
import { throttledSampler } from '../../../src/observability/throttledSampler';

describe('throttledSampler', () => {
  it('samples on the first scrape, then not again until maxAgeMs has passed', async () => {
    let samples = 0;
    const sampler = throttledSampler(1_000, async () => {
      samples++;
    });
    await sampler.refresh(Date.now());
    await sampler.refresh(Date.now() + 500);
    expect(samples).toBe(1);
    await sampler.refresh(Date.now() + 1_500);
    expect(samples).toBe(2);
  });

  it('lets concurrent scrapes share one sample', async () => {
    let samples = 0;
    let release!: () => void;
    const sampler = throttledSampler(1, () => {
      samples++;
      return new Promise<void>((resolve) => (release = resolve));
    });
    const scrapes = [sampler.refresh(), sampler.refresh(), sampler.refresh()];
    release();
    await Promise.all(scrapes);
    expect(samples).toBe(1);
  });

  it('answers the scrape when a sample fails, and samples again once maxAgeMs has passed', async () => {
    let samples = 0;
    const sampler = throttledSampler(1_000, async () => {
      samples++;
      throw new Error('PostgreSQL is away');
    });
    await expect(sampler.refresh(Date.now())).resolves.toBeUndefined();
    await sampler.refresh(Date.now() + 10);
    expect(samples).toBe(1);
    await sampler.refresh(Date.now() + 2_000);
    expect(samples).toBe(2);
  });
});
