import { describe, expect, it } from 'vitest';
import { pickCurrentVersion } from '../../../src/catalog/versionResolver';

const v = (versionId: string, status: 'active' | 'deprecated' | 'disabled' | 'deleted', released: string) => ({
  versionId,
  status,
  releasedAt: new Date(released),
});

describe('pickCurrentVersion', () => {
  it('is the newest active version, even when a newer one is disabled', () => {
    const versions = [v('v1', 'deprecated', '2025-01-01'), v('v3', 'disabled', '2025-09-01'), v('v2', 'active', '2025-05-01')];
    expect(pickCurrentVersion(versions)?.versionId).toBe('v2');
  });

  it('prefers active over a newer deprecated version', () => {
    expect(pickCurrentVersion([v('v2', 'deprecated', '2025-05-01'), v('v1', 'active', '2025-01-01')])?.versionId).toBe('v1');
  });

  it('falls back to the newest deprecated version, and to nothing', () => {
    expect(pickCurrentVersion([v('v1', 'deprecated', '2025-01-01'), v('v2', 'deprecated', '2025-02-01')])?.versionId).toBe('v2');
    expect(pickCurrentVersion([v('v1', 'disabled', '2025-01-01'), v('v2', 'deleted', '2025-02-01')])).toBeNull();
  });

  it('breaks release-time ties by version id', () => {
    expect(pickCurrentVersion([v('a', 'active', '2025-01-01'), v('b', 'active', '2025-01-01')])?.versionId).toBe('b');
  });
});
