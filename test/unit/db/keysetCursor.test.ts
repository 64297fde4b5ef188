import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from '../../../src/db/keysetCursor';
import { requestHash } from '../../../src/jobs/idempotency';
import { DomainError } from '../../../src/shared/errors';

const SECRET = 'a-test-secret-of-enough-length';
const position = { createdAt: new Date('2030-01-02T03:04:05.678Z'), id: 'job_abc' };

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof DomainError ? err.code : 'other';
  }
  return undefined;
}

describe('job listing cursor', () => {
  it('round-trips the keyset position with millisecond precision', () => {
    const cursor = encodeCursor(SECRET, 'acc_1', 'f', position);
    expect(decodeCursor(SECRET, 'acc_1', 'f', cursor)).toEqual(position);
  });

  it('refuses another secret, account or filter set, and any modified byte', () => {
    const cursor = encodeCursor(SECRET, 'acc_1', 'f', position);
    expect(codeOf(() => decodeCursor('another-secret-of-enough-length', 'acc_1', 'f', cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor(SECRET, 'acc_2', 'f', cursor))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor(SECRET, 'acc_1', 'g', cursor))).toBe('INVALID_CURSOR');
    const [data, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify({ v: 1, a: 'acc_1', f: 'f', t: 0, i: 'job_zzz' })).toString('base64url');
    expect(codeOf(() => decodeCursor(SECRET, 'acc_1', 'f', `${forged}.${mac}`))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor(SECRET, 'acc_1', 'f', `${data}.${mac}x`))).toBe('INVALID_CURSOR');
    expect(codeOf(() => decodeCursor(SECRET, 'acc_1', 'f', 'not-a-cursor'))).toBe('INVALID_CURSOR');
  });
});

describe('idempotency request hash', () => {
  it('ignores key order and undefined fields but not values', () => {
    const a = requestHash({ model: 'm', input: { prompt: 'p', num_images: '2' } });
    expect(requestHash({ input: { num_images: '2', prompt: 'p' }, model: 'm', version: undefined })).toBe(a);
    expect(requestHash({ model: 'm', input: { prompt: 'p', num_images: '3' } })).not.toBe(a);
  });
});
