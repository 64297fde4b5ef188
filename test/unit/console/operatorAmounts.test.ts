/** The operator console's pure parts: amounts written into its fields, spend limits as typed, and an audit entry's diff. */
import { describe, expect, it } from 'vitest';
import { auditChanges } from '../../../console/src/admin/auditDiff';
import { readLimitFields } from '../../../console/src/admin/spendLimitsForm';
import { dollarsForInput } from '../../../console/src/format';
import { parseDollars } from '../../../src/shared/money';

describe('dollarsForInput', () => {
  it('writes an amount for a field that parseDollars reads back exactly', () => {
    for (const microCents of [0, 1, 125, 1_500_000, 25_000_000, 1_250_500_000]) expect(parseDollars(dollarsForInput(microCents))).toBe(microCents);
    expect(dollarsForInput(25_000_000)).toBe('25');
    expect(dollarsForInput(1_500_000)).toBe('1.50');
  });
});

describe('readLimitFields', () => {
  it('sends an empty field as null, which removes the limit, and refuses negative or unreadable amounts', () => {
    expect(readLimitFields({ daily: '1.50', monthly: '' })).toEqual({ limits: { dailyMicroCents: 1_500_000, monthlyMicroCents: null }, errors: {} });
    const wrong = readLimitFields({ daily: '-1', monthly: 'lots' });
    expect(Object.keys(wrong.errors).sort()).toEqual(['daily', 'monthly']);
  });
});

describe('auditChanges', () => {
  it('lists only the fields that changed, nested ones by path, amounts in dollars', () => {
    const before = { name: 'Acme', dailyLimitMicroCents: null, suspended: false, segments: ['beta'], limits: { monthlyMicroCents: 1_000_000 } };
    const after = { name: 'Acme', dailyLimitMicroCents: 1_500_000, suspended: true, segments: ['beta', 'pro'], limits: { monthlyMicroCents: 2_000_000 } };
    expect(auditChanges(before, after)).toEqual([
      { field: 'dailyLimitMicroCents', before: 'none', after: '$1.50', identifier: false },
      { field: 'suspended', before: 'false', after: 'true', identifier: false },
      { field: 'segments', before: 'beta', after: 'beta, pro', identifier: false },
      { field: 'limits.monthlyMicroCents', before: '$1.00', after: '$2.00', identifier: false },
    ]);
  });

  it('marks ids as identifiers and writes instants as people read them', () => {
    const [revoked, entry] = auditChanges({ revokedAt: null }, { entryId: '42', revokedAt: '2026-11-25T12:00:00.000Z' });
    expect(entry).toMatchObject({ field: 'entryId', identifier: true, after: '42' });
    expect(revoked).toMatchObject({ field: 'revokedAt', identifier: false, before: 'none' });
    expect(revoked.after).toMatch(/^Nov 25, 2026/);
  });

  it('shows every field of a creation as new, and nothing for an unchanged target', () => {
    expect(auditChanges(null, { name: 'Acme', plan: 'pro' })).toEqual([
      { field: 'name', before: '—', after: 'Acme', identifier: false },
      { field: 'plan', before: '—', after: 'pro', identifier: false },
    ]);
    expect(auditChanges({ a: 1 }, { a: 1 })).toEqual([]);
  });
});
