import { describe, expect, it } from 'vitest';
import { createEventsUrlSigner } from '../../../src/jobs/events/eventsUrl';

const signer = createEventsUrlSigner({ secret: 'test-secret', publicBaseUrl: 'https://api.example/', ttlSeconds: 600 });
const job = { jobId: 'job_abc', accountId: 'acc_1' };
const now = new Date('2026-01-01T00:00:00Z');
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;

describe('signed events URLs', () => {
  it("name the job's events endpoint and open it for the job's account until they expire", () => {
    const { url, expiresAt } = signer.urlFor(job, now);
    expect(url).toMatch(/^https:\/\/api\.example\/v1\/jobs\/job_abc\/events\?token=/);
    expect(expiresAt.toISOString()).toBe('2026-01-01T00:10:00.000Z');
    expect(signer.verify('job_abc', tokenOf(url), new Date(now.getTime() + 599_000))).toEqual({ accountId: 'acc_1', expiresAt });
  });

  it('are refused once expired, for another job, tampered with, malformed, or signed with another secret', () => {
    const token = tokenOf(signer.urlFor(job, now).url);
    expect(() => signer.verify('job_abc', token, new Date(now.getTime() + 600_000))).toThrow(/expired/);
    expect(() => signer.verify('job_other', token, now)).toThrow(/not valid/);
    const [expires, account, signature] = token.split('.');
    expect(() => signer.verify('job_abc', `${Number(expires) + 3600}.${account}.${signature}`, now)).toThrow(/not valid/);
    expect(() => signer.verify('job_abc', `${expires}.acc_2.${signature}`, now)).toThrow(/not valid/);
    for (const bad of ['', 'x', 'a.b', '..', `${expires}..${signature}`]) expect(() => signer.verify('job_abc', bad, now)).toThrow(/not valid/);
    const otherSecret = createEventsUrlSigner({ secret: 'another', publicBaseUrl: 'https://api.example', ttlSeconds: 600 });
    expect(() => otherSecret.verify('job_abc', token, now)).toThrow(/not valid/);
  });
});
