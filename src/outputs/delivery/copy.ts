/**
 * Copies a completed job's outputs from our outputs bucket to the customer's bucket, then the manifest, verifying each
 * object the bucket then holds by its size and its MD5 (the ETag of an object written in one PUT). Repeatable: every
 * run writes every object again, with the same bytes and keys.
 */
import { createHash, type Hash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DestinationBucket } from '../destinations/bucket';
import type { Storage } from '../../storage/storage';
import type { JobOutput } from '../../shared/jobs';
import { C2PA_MANIFEST_TYPE } from '../../shared/provenance';
import { deliveredOutputKey, manifestKey } from './keys';
import { buildManifest, manifestBytes, type DeliveredJobFacts, type ManifestOutput } from './manifest';

/** Hears of an attempt's progress: bytes handed to the bucket, and each of its requests answered. */
export type AttemptProgress = (event: { bytes: number } | { answered: true }) => void;

export interface JobToDeliver extends DeliveredJobFacts {
  outputs: JobOutput[];
}

/** One of the job's outputs is no longer in our storage: no later attempt can deliver it. */
export class OutputMissingError extends Error {
  constructor(readonly key: string) {
    super(`output ${key} is no longer in storage`);
    this.name = 'OutputMissingError';
  }
}

/** What the customer's bucket holds after a write is not what was written. */
export class CopyVerificationError extends Error {
  constructor(key: string, problem: string) {
    super(`the copy of ${key} does not verify: ${problem}`);
    this.name = 'CopyVerificationError';
  }
}

/** Counts the bytes that pass and hashes them (SHA-256 for the manifest, MD5 for the ETag check). */
class Digest extends Transform {
  readonly sha256: Hash = createHash('sha256');
  readonly md5: Hash = createHash('md5');
  bytes = 0;

  constructor(private readonly progress: AttemptProgress) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.sha256.update(chunk);
    this.md5.update(chunk);
    this.bytes += chunk.length;
    this.progress({ bytes: chunk.length });
    done(null, chunk);
  }
}

export interface CopyDeps {
  source: Pick<Storage, 'outputsBucket' | 'getStream'>;
  bucket: DestinationBucket;
}

const NO_PROGRESS: AttemptProgress = () => undefined;

/** The bucket, telling `progress` of each request it answers and of the bytes of each whole body it takes. */
function reporting(bucket: DestinationBucket, progress: AttemptProgress): DestinationBucket {
  return {
    prefix: bucket.prefix,
    async put(key, body, sizeBytes, contentType) {
      await bucket.put(key, body, sizeBytes, contentType);
      if (Buffer.isBuffer(body)) progress({ bytes: body.length });
      progress({ answered: true });
    },
    async stat(key) {
      const stat = await bucket.stat(key);
      progress({ answered: true });
      return stat;
    },
  };
}

/**
 * Delivers every output and then the manifest; returns the keys written, the manifest's last. `progress` hears of
 * every byte the bucket's requests take and every request it answers, and of nothing while the bucket is silent.
 */
export async function copyJobOutputs(deps: CopyDeps, job: JobToDeliver, progress: AttemptProgress = NO_PROGRESS): Promise<string[]> {
  const { source } = deps;
  const bucket = reporting(deps.bucket, progress);
  const delivered: ManifestOutput[] = [];
  for (const [index, output] of job.outputs.entries()) {
    const key = deliveredOutputKey(bucket.prefix, job.jobId, index + 1, output.key);
    const body = await source.getStream(source.outputsBucket, output.key);
    if (!body) throw new OutputMissingError(output.key);
    const digest = await streamTo(bucket, key, body, output, progress);
    if (digest.bytes !== output.sizeBytes) {
      throw new CopyVerificationError(key, `read ${digest.bytes} bytes of our copy, which has ${output.sizeBytes}`);
    }
    const md5 = digest.md5.digest('hex');
    await verifyCopy(bucket, key, output.sizeBytes, md5);
    const entry: ManifestOutput = { key, contentType: output.contentType, sizeBytes: output.sizeBytes, sha256: digest.sha256.digest('hex') };
    if (output.manifestKey) entry.contentManifestKey = await copySidecar(source, bucket, output.manifestKey, `${key}.c2pa`);
    delivered.push(entry);
  }
  const manifest = manifestBytes(buildManifest(job, delivered));
  const manifestAt = manifestKey(bucket.prefix, job.jobId);
  await bucket.put(manifestAt, manifest, manifest.length, 'application/json');
  await verifyCopy(bucket, manifestAt, manifest.length, createHash('md5').update(manifest).digest('hex'));
  return [...delivered.flatMap((output) => [output.key, ...(output.contentManifestKey ? [output.contentManifestKey] : [])]), manifestAt];
}

/** Copies an output's sidecar Content Credentials (a few kilobytes, read whole) to `key`; returns `key`. */
async function copySidecar(source: CopyDeps['source'], bucket: DestinationBucket, ourKey: string, key: string): Promise<string> {
  const body = await source.getStream(source.outputsBucket, ourKey);
  if (!body) throw new OutputMissingError(ourKey);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  await bucket.put(key, bytes, bytes.length, C2PA_MANIFEST_TYPE);
  await verifyCopy(bucket, key, bytes.length, createHash('md5').update(bytes).digest('hex'));
  return key;
}

/** Streams our object into the bucket through a digest; a failure on either side ends both. */
async function streamTo(bucket: DestinationBucket, key: string, body: Readable, output: JobOutput, progress: AttemptProgress): Promise<Digest> {
  const digest = new Digest(progress);
  const read = pipeline(body, digest);
  try {
    await bucket.put(key, digest, output.sizeBytes, output.contentType);
  } catch (err) {
    digest.destroy();
    await read.catch(() => undefined);
    throw err;
  }
  await read;
  return digest;
}

async function verifyCopy(bucket: DestinationBucket, key: string, sizeBytes: number, md5: string): Promise<void> {
  const stored = await bucket.stat(key);
  if (!stored) throw new CopyVerificationError(key, 'the bucket does not have it after the write');
  if (stored.sizeBytes !== sizeBytes) throw new CopyVerificationError(key, `the bucket has ${stored.sizeBytes} bytes, ${sizeBytes} were written`);
  const etag = stored.etag.replace(/"/g, '').toLowerCase();
  if (etag !== md5) throw new CopyVerificationError(key, `its ETag ${etag} is not the MD5 ${md5} of the bytes written`);
}
