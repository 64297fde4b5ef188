import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import path from 'node:path';
import { presignUrl, uriEscape } from '../../../src/storage/sigv4Presign';

// The minio client's own signer (not in its public exports), used as a reference for the host-only case.
const minioDir = path.dirname(createRequire(path.join(process.cwd(), 'package.json')).resolve('minio'));
const { presignSignatureV4 } = createRequire(path.join(process.cwd(), 'package.json'))(
  path.join(minioDir, 'signing.js'),
) as typeof import('minio/dist/main/signing');

const base = {
  endpoint: 'http://127.0.0.1:9100',
  bucket: 'uploads',
  key: 'acc_1/file_abc/photo.png',
  region: 'us-east-1',
  accessKey: 'AKIDEXAMPLE',
  secretKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  expirySeconds: 900,
  requestDate: new Date('2026-01-02T03:04:05Z'),
};

describe('presignUrl', () => {
  it('matches the minio client signature when only host is signed', () => {
    const ours = presignUrl({ ...base, method: 'PUT' });
    const reference = presignSignatureV4(
      { method: 'PUT', protocol: 'http:', path: `/${base.bucket}/${base.key}`, headers: { host: '127.0.0.1:9100' } },
      base.accessKey,
      base.secretKey,
      undefined,
      base.region,
      base.requestDate,
      base.expirySeconds,
    );
    const sig = (u: string) => new URL(u).searchParams.get('X-Amz-Signature');
    expect(sig(ours)).toBe(sig(reference));
  });

  it('signs content-type and host, and nothing that depends on the body', () => {
    const url = new URL(presignUrl({ ...base, method: 'PUT', signedHeaders: { 'Content-Type': 'image/png' } }));
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Date')).toBe('20260102T030405Z');
    expect([...url.searchParams.keys()].some((k) => /checksum|content-sha256|content-length/i.test(k))).toBe(false);
  });

  it('gives a different signature for a different content type', () => {
    const png = presignUrl({ ...base, method: 'PUT', signedHeaders: { 'content-type': 'image/png' } });
    const jpeg = presignUrl({ ...base, method: 'PUT', signedHeaders: { 'content-type': 'image/jpeg' } });
    expect(png).not.toBe(jpeg);
  });

  it('escapes keys per segment and keeps slashes', () => {
    const url = presignUrl({ ...base, method: 'GET', key: 'a b/c+d(1).png' });
    expect(url).toContain('/uploads/a%20b/c%2Bd%281%29.png?');
    expect(uriEscape("!'()*~-_.")).toBe('%21%27%28%29%2A~-_.');
  });

  it('rejects expiries outside 1 s .. 7 days', () => {
    expect(() => presignUrl({ ...base, method: 'GET', expirySeconds: 0 })).toThrow(RangeError);
    expect(() => presignUrl({ ...base, method: 'GET', expirySeconds: 7 * 86400 + 1 })).toThrow(RangeError);
  });
});
