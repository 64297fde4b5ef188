/** One namespace retention for every Temporal the project starts: dev server, server on PostgreSQL, compose. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const retention = require('../../../scripts/lib/temporalRetention') as {
  DEFAULT_NAMESPACE_RETENTION: string;
  namespaceRetention(env?: NodeJS.ProcessEnv): { text: string; seconds: number };
};

describe('Temporal namespace retention', () => {
  it('is 72 hours unless TEMPORAL_NAMESPACE_RETENTION says otherwise, in hours or days', () => {
    expect(retention.namespaceRetention({})).toEqual({ text: '72h', seconds: 259_200 });
    expect(retention.namespaceRetention({ TEMPORAL_NAMESPACE_RETENTION: '24h' })).toEqual({ text: '24h', seconds: 86_400 });
    expect(retention.namespaceRetention({ TEMPORAL_NAMESPACE_RETENTION: '30d' })).toEqual({ text: '30d', seconds: 2_592_000 });
    expect(retention.namespaceRetention({ TEMPORAL_NAMESPACE_RETENTION: '' }).text).toBe('72h');
  });

  it.each(['72', '72m', '1.5d', '-1d', 'forever', '0h'])('refuses %j naming the variable', (value) => {
    expect(() => retention.namespaceRetention({ TEMPORAL_NAMESPACE_RETENTION: value })).toThrow(/TEMPORAL_NAMESPACE_RETENTION must be/);
  });

  it('refuses less than one day, which Temporal would refuse', () => {
    expect(() => retention.namespaceRetention({ TEMPORAL_NAMESPACE_RETENTION: '23h' })).toThrow(/at least 24h/);
  });

  it("is the compose stack's default too, given to the server and set again by temporal-setup", () => {
    const compose = readFileSync(path.join(__dirname, '../../../docker-compose.yml'), 'utf8');
    const defaults = [...compose.matchAll(/\$\{TEMPORAL_NAMESPACE_RETENTION:-([^}]+)\}/g)].map((m) => m[1]);
    expect(defaults).toEqual([retention.DEFAULT_NAMESPACE_RETENTION, retention.DEFAULT_NAMESPACE_RETENTION]);
    expect(compose).toMatch(/DEFAULT_NAMESPACE_RETENTION: \$\{TEMPORAL_NAMESPACE_RETENTION/);
    expect(compose).toContain('temporal operator namespace update --namespace default --retention "$$TEMPORAL_NAMESPACE_RETENTION"');
  });
});
