/**
 * Gauges every API process reports from a shared source (Temporal, PostgreSQL): sampled at most once per `maxAgeMs`
 * when a scrape asks, so scrapes from several Prometheus servers, or a fast scrape interval, do not each cost a query.
 * Concurrent scrapes share one sample; a failed sample is swallowed (the sampler decides what its gauges then show).
 */
export interface ThrottledSampler {
  /** Brings the gauges up to date unless the last sample is more recent than `maxAgeMs`. */
  refresh(now?: number): Promise<void>;
}

export function throttledSampler(maxAgeMs: number, sample: () => Promise<void>): ThrottledSampler {
  let sampledAt = 0;
  let running: Promise<void> | undefined;
  return {
    async refresh(now = Date.now()) {
      if (now - sampledAt < maxAgeMs) return;
      running ??= sample()
        .catch(() => undefined)
        .finally(() => {
          sampledAt = Date.now();
          running = undefined;
        });
      await running;
    },
  };
}
