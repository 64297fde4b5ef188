import { describe, expect, it } from 'vitest';
import type * as Minio from 'minio';
import { S3Error } from 'minio';
import { probeDestination } from '../../../../src/outputs/destinations/probe';

function s3Error(code: string): S3Error {
  const error = new S3Error(`the endpoint says ${code}`);
  error.code = code;
  return error;
}

/** A bucket client whose put, stat and delete each succeed or throw `failures[operation]`. */
function fakeClient(failures: Partial<Record<'put' | 'stat' | 'remove', Error>> = {}, statSize = 27) {
  const calls: string[] = [];
  const step = async <T>(name: 'put' | 'stat' | 'remove', result: T): Promise<T> => {
    calls.push(name);
    if (failures[name]) throw failures[name];
    return result;
  };
  const client = {
    putObject: () => step('put', { etag: 'x', versionId: null }),
    statObject: () => step('stat', { size: statSize, etag: 'x' }),
    removeObject: () => step('remove', undefined),
  } as unknown as Minio.Client;
  return { client, calls };
}

describe('probeDestination', () => {
  it('writes, reads back and deletes its object', async () => {
    const { client, calls } = fakeClient();
    expect(await probeDestination(client, 'bucket', 'p/')).toEqual({ ok: true });
    expect(calls).toEqual(['put', 'stat', 'remove']);
  });

  it('names the operation the policy denied', async () => {
    expect(await probeDestination(fakeClient({ stat: s3Error('AccessDenied') }).client, 'b', '')).toMatchObject({ ok: false, problem: 'DESTINATION_ACCESS_DENIED', operation: 'read' });
    expect(await probeDestination(fakeClient({ remove: s3Error('AccessDenied') }).client, 'b', '')).toMatchObject({ ok: false, problem: 'DESTINATION_ACCESS_DENIED', operation: 'delete' });
  });

  it('tells refused credentials, a missing bucket, another answer and no answer apart', async () => {
    expect(await probeDestination(fakeClient({ put: s3Error('InvalidAccessKeyId') }).client, 'b', '')).toMatchObject({ problem: 'DESTINATION_CREDENTIALS_REFUSED', s3Code: 'InvalidAccessKeyId' });
    expect(await probeDestination(fakeClient({ put: s3Error('NoSuchBucket') }).client, 'b', '')).toMatchObject({ problem: 'DESTINATION_BUCKET_NOT_FOUND' });
    expect(await probeDestination(fakeClient({ put: s3Error('AuthorizationHeaderMalformed') }).client, 'b', '')).toMatchObject({
      problem: 'DESTINATION_PROBE_FAILED',
      s3Code: 'AuthorizationHeaderMalformed',
      operation: 'write',
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    expect(await probeDestination(fakeClient({ put: refused }).client, 'b', '')).toMatchObject({ problem: 'DESTINATION_UNREACHABLE', reason: expect.stringContaining('ECONNREFUSED') });
  });

  it('refuses an object that reads back with another size', async () => {
    expect(await probeDestination(fakeClient({}, 3).client, 'b', '')).toMatchObject({ ok: false, problem: 'DESTINATION_PROBE_FAILED', operation: 'read' });
  });
});
