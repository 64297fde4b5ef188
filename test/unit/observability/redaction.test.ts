import { describe, expect, it } from 'vitest';
import { isCredentialParam, redactCredentials, redactFileIds, redactObjectKeys } from '../../../src/observability/redaction';
import { redactSpan } from '../../../src/observability/traceRedaction';

const FILE_ID = 'file_3kTMd9Qx0vLw7bYz1aR5nC';
const BUCKETS = ['genmedia-uploads', 'genmedia-outputs'];

describe('redactFileIds', () => {
  it('hides file ids in file URLs, upload paths and object keys', () => {
    expect(redactFileIds(`https://api.example.com/v1/files/${FILE_ID}?x=1`)).toBe('https://api.example.com/v1/files/:fileId?x=1');
    expect(redactFileIds('/v1/files/anything-at-all')).toBe('/v1/files/:fileId');
    expect(redactFileIds(`/v1/uploads/${FILE_ID}`)).toBe('/v1/uploads/:fileId');
    expect(redactFileIds(`acct_1/${FILE_ID}`)).toBe('acct_1/:fileId');
    expect(redactFileIds('/v1/jobs/job_1')).toBe('/v1/jobs/job_1');
  });
});

describe('redactCredentials', () => {
  it("hides an events URL's token, in a URL or a query alone, and keeps the other parameters", () => {
    expect(redactCredentials('/v1/jobs/job_1/events?token=1795.acc_1.c2ln&since=3')).toBe('/v1/jobs/job_1/events?token=:redacted&since=3');
    expect(redactCredentials('since=3&token=1795.acc_1.c2ln')).toBe('since=3&token=:redacted');
    expect(redactCredentials('token=1795.acc_1.c2ln')).toBe('token=:redacted');
  });

  it("hides a Cog webhook's secret, as a span's url.query, url.full or http.target carries it", () => {
    expect(redactCredentials('prediction=job_1&secret=Zm9vYmFyYmF6cXV4')).toBe('prediction=job_1&secret=:redacted');
    expect(redactCredentials('http://api:3000/v1/upstreams/cog/callback?prediction=job_1&secret=Zm9vYmFy#x')).toBe(
      'http://api:3000/v1/upstreams/cog/callback?prediction=job_1&secret=:redacted#x',
    );
    expect(redactCredentials('POST /v1/upstreams/cog/callback?secret=Zm9v-YmFy_ failed')).toBe('POST /v1/upstreams/cog/callback?secret=:redacted failed');
  });

  it('hides the credentials other services sign URLs with, whatever their case', () => {
    const presigned = 'https://bucket.s3.example.com/a.png?X-Amz-Credential=AKIA%2F2026&X-Amz-Security-Token=tok&X-Amz-Signature=abc123&X-Amz-Expires=600';
    expect(redactCredentials(presigned)).toBe(
      'https://bucket.s3.example.com/a.png?X-Amz-Credential=:redacted&X-Amz-Security-Token=:redacted&X-Amz-Signature=:redacted&X-Amz-Expires=600',
    );
    expect(redactCredentials('https://x.blob.example.net/c/a.png?sv=2024&sig=abc%2Bdef&se=2026')).toBe('https://x.blob.example.net/c/a.png?sv=2024&sig=:redacted&se=2026');
    expect(redactCredentials('/v1/models?key=AIza123&api_key=k&access_token=t&PASSWORD=p')).toBe('/v1/models?key=:redacted&api_key=:redacted&access_token=:redacted&PASSWORD=:redacted');
  });

  it('hides a credential of a URL that is itself a query value, percent-encoded', () => {
    expect(redactCredentials('/hook?next=https%3A%2F%2Fa.example%2Fcb%3Fprediction%3Dp1%26secret%3DZm9v%2Bbar%26x%3D1')).toBe(
      '/hook?next=https%3A%2F%2Fa.example%2Fcb%3Fprediction%3Dp1%26secret%3D:redacted%26x%3D1',
    );
  });

  it('leaves names that only look alike, paths and values alone', () => {
    expect(redactCredentials('/v1/admin/usage?keyId=key_1&monkey=1&author=a&groupBy=key')).toBe('/v1/admin/usage?keyId=key_1&monkey=1&author=a&groupBy=key');
    expect(redactCredentials('/v1/secret/token=abc')).toBe('/v1/secret/token=abc');
  });

  it('names the credential parameters', () => {
    for (const name of ['secret', 'token', 'key', 'signature', 'sig', 'X-Amz-Signature', 'x-goog-credential', 'apiKey', 'client_secret', 'x-api-key', 'refresh_token']) {
      expect(isCredentialParam(name), name).toBe(true);
    }
    for (const name of ['prediction', 'since', 'prefix', 'keyId', 'status', 'author', 'monkey']) expect(isCredentialParam(name), name).toBe(false);
  });
});

describe('redactObjectKeys', () => {
  it('hides the key and the query of an object path or URL of the buckets', () => {
    expect(redactObjectKeys('http://minio:9000/genmedia-outputs/job_1/output-1.png', BUCKETS)).toBe('http://minio:9000/genmedia-outputs/:objectKey');
    expect(redactObjectKeys('https://s3.example.com/genmedia-uploads/acct_1/x?X-Amz-Signature=abc', BUCKETS)).toBe(
      'https://s3.example.com/genmedia-uploads/:objectKey?:query',
    );
    expect(redactObjectKeys('http://minio:9000/genmedia-outputs?list-type=2&prefix=job_1%2F', BUCKETS)).toBe('http://minio:9000/genmedia-outputs?:query');
  });

  it('leaves a bucket alone, other buckets and other paths', () => {
    expect(redactObjectKeys('/genmedia-uploads', BUCKETS)).toBe('/genmedia-uploads');
    expect(redactObjectKeys('http://minio:9000/genmedia-uploads-archive/a/b', BUCKETS)).toBe('http://minio:9000/genmedia-uploads-archive/a/b');
    expect(redactObjectKeys('/v1/jobs/job_1', BUCKETS)).toBe('/v1/jobs/job_1');
  });
});

describe('redactSpan', () => {
  it('redacts the name, attributes, event attributes and status message, and a storage path’s separate query', () => {
    const span = {
      name: `GET /v1/files/${FILE_ID}`,
      attributes: {
        'url.path': '/genmedia-outputs',
        'url.query': 'list-type=2&prefix=job_1%2F',
        'http.response.status_code': 200,
        tags: [`/v1/uploads/${FILE_ID}`],
        'http.target': '/v1/jobs/job_1/events?token=1795.acc_1.c2ln',
        'url.full': 'http://api:3000/v1/upstreams/cog/callback?prediction=job_1&secret=Zm9vYmFy',
      },
      events: [{ name: 'exception', time: [0, 0] as [number, number], attributes: { 'exception.message': `input file https://a.example/v1/files/${FILE_ID} could not be fetched` } }],
      status: { code: 2, message: `no such object genmedia-uploads/acct_1/${FILE_ID}` },
    };
    redactSpan(span, BUCKETS);
    expect(span.name).toBe('GET /v1/files/:fileId');
    expect(span.attributes).toEqual({
      'url.path': '/genmedia-outputs',
      'url.query': ':query',
      'http.response.status_code': 200,
      tags: ['/v1/uploads/:fileId'],
      'http.target': '/v1/jobs/job_1/events?token=:redacted',
      'url.full': 'http://api:3000/v1/upstreams/cog/callback?prediction=job_1&secret=:redacted',
    });
    expect(span.events[0].attributes['exception.message']).toBe('input file https://a.example/v1/files/:fileId could not be fetched');
    expect(span.status.message).toBe('no such object genmedia-uploads/acct_1/:fileId');
  });
});
