/**
 * One METRICS_PORT and one METRICS_HOST place the metrics of whichever process reads them: a worker serves them on
 * 9464 when the port is unset, the API on its client port then, and on a port of its own when it is set.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

describe('METRICS_PORT', () => {
  it('unset: a worker on 9464, the API on PORT, both on loopback', () => {
    const { observability } = loadConfig({});
    expect(observability.workerMetricsPort).toBe(9464);
    expect(observability.apiMetricsPort).toBeUndefined();
    expect(observability.metricsHost).toBe('127.0.0.1');
  });

  it('set: the port of either process, 0 for any free one', () => {
    expect(loadConfig({ METRICS_PORT: '9500', METRICS_HOST: '0.0.0.0' }).observability).toMatchObject({ workerMetricsPort: 9500, apiMetricsPort: 9500, metricsHost: '0.0.0.0' });
    expect(loadConfig({ METRICS_PORT: '0' }).observability).toMatchObject({ workerMetricsPort: 0, apiMetricsPort: 0 });
  });

  it('refuses what is no port, naming it', () => {
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });
});
