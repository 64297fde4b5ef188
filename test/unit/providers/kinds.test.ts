/** The registry of provider kinds: what each kind declares, and the lists derived from it. */
import { describe, expect, it } from 'vitest';
import { isKindId, KIND_IDS, kindOf, kindsRunBy, kindsThatRunJobs, runsJobs, type CallbackIntake } from '../../../src/providers/kinds';
import { UPSTREAM_IDS } from '../../../src/providers/upstreams/ids';

describe('provider kinds', () => {
  it('holds the built-in, HTTP, Cog and maker kinds and one kind per hosted upstream', () => {
    expect([...KIND_IDS].sort()).toEqual(['cog', 'http', 'local', 'maker', ...UPSTREAM_IDS].sort());
    expect(KIND_IDS.filter((id) => kindOf(id)!.upstream).sort()).toEqual([...UPSTREAM_IDS].sort());
    expect(isKindId('toString')).toBe(false);
    expect(kindOf('nope')).toBeUndefined();
  });

  it('lets a maker run nothing, and builds an adapter for every kind that runs jobs', () => {
    expect(runsJobs('maker')).toBe(false);
    expect(kindOf('maker')!.adapter).toBeUndefined();
    expect(runsJobs('nope')).toBe(false);
    for (const id of kindsThatRunJobs()) expect(kindOf(id)!.adapter, id).toBeTypeOf('function');
    expect(kindsThatRunJobs()).not.toContain('maker');
  });

  it('gives Cog providers to the Cog worker and every other kind that runs jobs a worker of its own', () => {
    expect(kindsRunBy('cog')).toEqual(['cog']);
    expect([...kindsRunBy('own')].sort()).toEqual(['http', 'local', ...UPSTREAM_IDS].sort());
  });

  it('takes callbacks from fal, Replicate and Cog only, each with its own rules', () => {
    expect(KIND_IDS.filter((id) => kindOf(id)!.callbacks).sort()).toEqual(['cog', 'fal', 'replicate']);
    expect(kindOf('fal')!.callbacks).toMatchObject({ bodyLimitBytes: 1024 * 1024, refusesReplays: true, takesUnknownGenerations: false });
    expect(kindOf('cog')!.callbacks).toMatchObject({ bodyLimitBytes: 64 * 1024 * 1024, refusesReplays: false, takesUnknownGenerations: true });
  });

  it('gives a kind its callback URL only where an origin is configured', () => {
    const settings = { upstreams: { callbackBaseUrl: 'https://api.example' }, cog: { callbackBaseUrl: 'http://api:3000' } };
    const url = (kind: string, s: unknown) => kindOf(kind)!.callbacks!.url(s as Parameters<CallbackIntake['url']>[0]);
    expect(url('replicate', settings)).toBe('https://api.example/v1/providers/replicate/callback');
    expect(url('cog', settings)).toBe('http://api:3000/v1/providers/cog/callback');
    expect(url('fal', { ...settings, upstreams: {} })).toBeUndefined();
    expect(kindOf('runway')!.callbacks).toBeUndefined();
  });

  it('keeps the takes-a-route rule of the catalog: hosted upstreams and Cog', () => {
    expect(KIND_IDS.filter((id) => kindOf(id)!.takesMapping).sort()).toEqual(['cog', ...UPSTREAM_IDS].sort());
  });
});
