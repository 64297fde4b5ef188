import { describe, expect, it } from 'vitest';
import { createOutputUrlSigner } from '../../../../src/dialects/replicate/outputUrls';
import { DomainError } from '../../../../src/shared/errors';

const signer = createOutputUrlSigner({ secret: 'a-server-secret-of-some-length', baseUrl: 'https://genmedia.example/replicate/v1', ttlSeconds: 3600 });
const job = { id: 'job_abc', accountId: 'acc_1' };
const now = new Date('2026-12-01T12:00:00Z');

function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

function refusal(call: () => void): DomainError {
  try {
    call();
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('not refused');
}

describe("a prediction's output URLs", () => {
  it('are capability URLs of the output: its path with a token of the expiry and a signature', () => {
    const url = signer.urlFor(job, 0, now);
    expect(url).toMatch(/^https:\/\/genmedia\.example\/replicate\/v1\/predictions\/job_abc\/outputs\/0\?token=\d+\.[A-Za-z0-9_-]{43}$/);
    expect(() => signer.verify(job, 0, tokenOf(url), new Date(now.getTime() + 3599_000))).not.toThrow();
  });

  it('open only the output they were made for: another index, job or account, or a changed token, is refused', () => {
    const token = tokenOf(signer.urlFor(job, 1, now));
    for (const [target, index] of [
      [job, 0],
      [{ ...job, id: 'job_other' }, 1],
      [{ ...job, accountId: 'acc_2' }, 1],
    ] as const) {
      expect(refusal(() => signer.verify(target, index, token, now))).toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const [expires, signature] = token.split('.');
    for (const changed of [`${Number(expires) + 3600}.${signature}`, `${expires}.${signature!.slice(0, -1)}A`, signature!, '', `x.${signature}`]) {
      expect(refusal(() => signer.verify(job, 1, changed, now)).message).toContain('not valid');
    }
    const other = createOutputUrlSigner({ secret: 'another-server-secret-entirely', baseUrl: 'https://genmedia.example/replicate/v1', ttlSeconds: 3600 });
    expect(refusal(() => other.verify(job, 1, token, now)).code).toBe('UNAUTHORIZED');
  });

  it('expire after their time to live, saying so', () => {
    const token = tokenOf(signer.urlFor(job, 0, now));
    const expired = refusal(() => signer.verify(job, 0, token, new Date(now.getTime() + 3600_000)));
    expect(expired).toMatchObject({ code: 'UNAUTHORIZED', details: { expiredAt: '2026-12-01T13:00:00.000Z' } });
    expect(expired.message).toContain('expired');
  });
});
