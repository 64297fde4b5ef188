import { describe, expect, it } from 'vitest';
import { redactFileIds, redactObjectKeys, redactTokens } from '../../../src/observability/redaction';
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

describe('redactTokens', () => {
  it("hides the token of a job's signed events URL, in a URL or a bare query", () => {
    expect(redactTokens('/v1/jobs/job_1/events?token=1795.acc_1.c2ln&since=3')).toBe('/v1/jobs/job_1/events?token=:token&since=3');
    expect(redactTokens('since=3&token=1795.acc_1.c2ln')).toBe('since=3&token=:token');
    expect(redactTokens('token=1795.acc_1.c2ln')).toBe('token=:token');
    expect(redactTokens('/v1/jobs?mytoken=x&status=failed')).toBe('/v1/jobs?mytoken=x&status=failed');
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
      'http.target': '/v1/jobs/job_1/events?token=:token',
    });
    expect(span.events[0].attributes['exception.message']).toBe('input file https://a.example/v1/files/:fileId could not be fetched');
    expect(span.status.message).toBe('no such object genmedia-uploads/acct_1/:fileId');
  });
});
