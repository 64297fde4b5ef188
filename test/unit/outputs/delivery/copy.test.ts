/** The copy of a job's outputs to a customer's bucket, against an in-memory bucket that behaves like S3's single PUT. */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { DestinationBucket } from '../../../../src/outputs/destinations/bucket';
import { copyJobOutputs, CopyVerificationError, OutputMissingError, type JobToDeliver } from '../../../../src/outputs/delivery/copy';

const png = Buffer.from('89504e470d0a1a0a-first-image', 'utf8');
const mp4 = Buffer.alloc(300_000, 7);
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const job: JobToDeliver = {
  jobId: 'job_abc',
  model: 'pixelforge/forge-pro/text-to-image',
  version: 'v2',
  costMicroCents: 90_000,
  createdAt: new Date('2026-03-14T09:26:00.000Z'),
  startedAt: new Date('2026-03-14T09:26:01.000Z'),
  completedAt: new Date('2026-03-14T09:26:04.500Z'),
  outputs: [
    { key: 'job_abc/output-1.png', contentType: 'image/png', sizeBytes: png.length, width: 4, height: 4 },
    { key: 'job_abc/output-2.mp4', contentType: 'video/mp4', sizeBytes: mp4.length },
  ],
};

const ours = new Map([
  ['job_abc/output-1.png', png],
  ['job_abc/output-2.mp4', mp4],
]);
const source = {
  outputsBucket: 'outputs',
  async getStream(_bucket: string, key: string) {
    const bytes = ours.get(key);
    // Small chunks, as a network read delivers them.
    return bytes ? Readable.from(Array.from({ length: Math.ceil(bytes.length / 4096) }, (_, i) => bytes.subarray(i * 4096, (i + 1) * 4096))) : null;
  },
};

/** Stores what it is given; `corrupt` changes the bytes kept, as a faulty bucket or network would. */
function memoryBucket(prefix: string, corrupt?: (key: string, bytes: Buffer) => Buffer) {
  const objects = new Map<string, { bytes: Buffer; contentType: string }>();
  const bucket: DestinationBucket = {
    prefix,
    async put(key, body, sizeBytes, contentType) {
      const chunks: Buffer[] = [];
      if (Buffer.isBuffer(body)) chunks.push(body);
      else for await (const chunk of body) chunks.push(Buffer.from(chunk));
      const bytes = Buffer.concat(chunks);
      if (bytes.length !== sizeBytes) throw new Error(`declared ${sizeBytes} bytes, sent ${bytes.length}`);
      objects.set(key, { bytes: corrupt ? corrupt(key, bytes) : bytes, contentType });
    },
    async stat(key) {
      const object = objects.get(key);
      return object ? { sizeBytes: object.bytes.length, etag: createHash('md5').update(object.bytes).digest('hex') } : null;
    },
  };
  return { bucket, objects };
}

describe('copyJobOutputs', () => {
  it('puts each output at {prefix}{jobId}/{n}.{ext} and a manifest with the job and every SHA-256 beside them', async () => {
    const { bucket, objects } = memoryBucket('exports/');
    const keys = await copyJobOutputs({ source, bucket }, job);

    expect(keys).toEqual(['exports/job_abc/1.png', 'exports/job_abc/2.mp4', 'exports/job_abc/manifest.json']);
    expect(objects.get('exports/job_abc/1.png')).toEqual({ bytes: png, contentType: 'image/png' });
    expect(objects.get('exports/job_abc/2.mp4')).toEqual({ bytes: mp4, contentType: 'video/mp4' });
    const manifest = objects.get('exports/job_abc/manifest.json')!;
    expect(manifest.contentType).toBe('application/json');
    expect(JSON.parse(manifest.bytes.toString('utf8'))).toEqual({
      jobId: 'job_abc',
      model: 'pixelforge/forge-pro/text-to-image',
      version: 'v2',
      costMicroCents: 90_000,
      createdAt: '2026-03-14T09:26:00.000Z',
      startedAt: '2026-03-14T09:26:01.000Z',
      completedAt: '2026-03-14T09:26:04.500Z',
      outputs: [
        { key: 'exports/job_abc/1.png', contentType: 'image/png', sizeBytes: png.length, sha256: sha256(png) },
        { key: 'exports/job_abc/2.mp4', contentType: 'video/mp4', sizeBytes: mp4.length, sha256: sha256(mp4) },
      ],
    });
  });

  it('writes the same bytes again when run again', async () => {
    const { bucket, objects } = memoryBucket('');
    await copyJobOutputs({ source, bucket }, job);
    const first = new Map([...objects].map(([key, object]) => [key, Buffer.from(object.bytes)]));
    await copyJobOutputs({ source, bucket }, job);
    expect([...objects.keys()]).toEqual(['job_abc/1.png', 'job_abc/2.mp4', 'job_abc/manifest.json']);
    for (const [key, object] of objects) expect(object.bytes.equals(first.get(key)!)).toBe(true);
  });

  it('refuses a copy whose bytes the bucket does not have as written, and writes no manifest', async () => {
    const { bucket, objects } = memoryBucket('', (key, bytes) => (key.endsWith('2.mp4') ? Buffer.concat([bytes.subarray(1), Buffer.from('x')]) : bytes));
    await expect(copyJobOutputs({ source, bucket }, job)).rejects.toThrow(CopyVerificationError);
    await expect(copyJobOutputs({ source, bucket }, job)).rejects.toThrow(/2\.mp4 .*ETag/);
    expect(objects.has('job_abc/manifest.json')).toBe(false);
  });

  it('refuses a copy the bucket stored short', async () => {
    const { bucket } = memoryBucket('', (key, bytes) => (key.endsWith('1.png') ? bytes.subarray(0, 10) : bytes));
    await expect(copyJobOutputs({ source, bucket }, job)).rejects.toThrow(/has 10 bytes/);
  });

  it('says which output is no longer in our storage', async () => {
    const { bucket } = memoryBucket('');
    const gone = { ...job, outputs: [...job.outputs, { key: 'job_abc/output-3.png', contentType: 'image/png', sizeBytes: 5 }] };
    const failure = await copyJobOutputs({ source, bucket }, gone).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(OutputMissingError);
    expect((failure as OutputMissingError).key).toBe('job_abc/output-3.png');
  });

  it('ends the read of our copy when the bucket refuses the write', async () => {
    let destroyed = false;
    const refusing: DestinationBucket = {
      prefix: '',
      async put() {
        throw Object.assign(new Error('Access Denied.'), { code: 'AccessDenied' });
      },
      async stat() {
        return null;
      },
    };
    const watched = {
      outputsBucket: 'outputs',
      async getStream() {
        const stream = Readable.from([png]);
        stream.on('close', () => (destroyed = true));
        return stream;
      },
    };
    await expect(copyJobOutputs({ source: watched, bucket: refusing }, job)).rejects.toThrow('Access Denied.');
    await new Promise((r) => setImmediate(r));
    expect(destroyed).toBe(true);
  });
});
