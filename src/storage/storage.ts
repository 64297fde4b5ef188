import type { Readable } from 'node:stream';
import * as Minio from 'minio';
import type { Config } from '../config';
import { presignUrl } from './sigv4Presign';

/** MinIO's settings; `sessionToken` goes with temporary (STS) credentials instead of a user's own. */
export type StorageConfig = Config['minio'] & { sessionToken?: string };

export interface StoredObject {
  size: number;
  contentType: string | null;
  etag: string;
  lastModified: Date;
}

export interface ListedObject {
  key: string;
  size: number;
  etag: string;
}

/** Response headers a presigned GET makes the storage answer with. */
export interface PresignGetResponseHeaders {
  contentType?: string;
  contentDisposition?: string;
  cacheControl?: string;
}

export interface Storage {
  readonly uploadsBucket: string;
  readonly outputsBucket: string;
  /** Creates both configured buckets when missing; safe to call repeatedly and concurrently. */
  ensureBuckets(): Promise<void>;
  /**
   * A URL that accepts one PUT of `key` carrying exactly `Content-Type: contentType` (and, when `contentLength` is
   * given, exactly that many bytes), for `expirySeconds`.
   */
  presignPut(bucket: string, key: string, contentType: string, expirySeconds: number, contentLength?: number): Promise<string>;
  presignGet(
    bucket: string,
    key: string,
    expirySeconds: number,
    responseHeaders?: PresignGetResponseHeaders,
  ): Promise<string>;
  putFile(bucket: string, key: string, source: string | Buffer | Readable, contentType: string): Promise<void>;
  /** Object metadata, or null when the object does not exist. */
  stat(bucket: string, key: string): Promise<StoredObject | null>;
  /** Every object under `prefix` with its size and ETag, fetched a page (1,000 objects) at a time. */
  listObjects(bucket: string, prefix: string): AsyncIterable<ListedObject>;
  /** Deletes the object; succeeds when it is already gone. */
  remove(bucket: string, key: string): Promise<void>;
  /**
   * Deletes the named objects, up to 1,000 a request; keys already gone count as deleted. Throws when the storage
   * refuses any of them.
   */
  removeMany(bucket: string, keys: readonly string[]): Promise<void>;
  /** Deletes every object under `prefix`; returns how many were deleted. */
  removePrefix(bucket: string, prefix: string): Promise<number>;
  /** The object's bytes, or null when it does not exist. */
  getStream(bucket: string, key: string): Promise<Readable | null>;
  /** Throws when the storage is unreachable or the credentials are refused. */
  ping(): Promise<void>;
  readonly client: Minio.Client;
}

const NOT_FOUND_CODES = new Set(['NotFound', 'NoSuchKey', 'NoSuchObject']);

function isNotFound(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code !== undefined && NOT_FOUND_CODES.has(code);
}

function clientOptions(config: StorageConfig): Minio.ClientOptions {
  const url = new URL(config.endpoint);
  const useSSL = url.protocol === 'https:';
  return {
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: config.accessKey,
    secretKey: config.secretKey,
    sessionToken: config.sessionToken,
    region: config.region,
    pathStyle: true,
  };
}

export function createStorage(config: StorageConfig): Storage {
  const client = new Minio.Client(clientOptions(config));

  async function ensureBucket(bucket: string): Promise<void> {
    if (await client.bucketExists(bucket)) return;
    try {
      await client.makeBucket(bucket, config.region);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'BucketAlreadyOwnedByYou' && code !== 'BucketAlreadyExists') throw err;
    }
  }

  async function* listObjects(bucket: string, prefix: string): AsyncIterable<ListedObject> {
    const stream = client.listObjectsV2(bucket, prefix, true);
    for await (const item of stream as AsyncIterable<Minio.BucketItem>) {
      if (item.name) yield { key: item.name, size: item.size, etag: item.etag ?? '' };
    }
  }

  async function removeMany(bucket: string, keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const results = await client.removeObjects(bucket, keys.slice(i, i + 1000));
      const refused = results.find((result) => result?.Error && !NOT_FOUND_CODES.has(result.Error.Code ?? ''));
      if (refused?.Error) throw new Error(`storage refused to delete ${refused.Error.Key}: ${refused.Error.Code} ${refused.Error.Message ?? ''}`.trim());
    }
  }

  async function listKeys(bucket: string, prefix: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const object of listObjects(bucket, prefix)) keys.push(object.key);
    return keys;
  }

  return {
    uploadsBucket: config.uploadsBucket,
    outputsBucket: config.outputsBucket,
    client,

    async ensureBuckets() {
      for (const bucket of new Set([config.uploadsBucket, config.outputsBucket])) await ensureBucket(bucket);
    },

    async presignPut(bucket, key, contentType, expirySeconds, contentLength) {
      return presignUrl({
        method: 'PUT',
        endpoint: config.publicEndpoint,
        bucket,
        key,
        region: config.region,
        accessKey: config.accessKey,
        secretKey: config.secretKey,
        sessionToken: config.sessionToken,
        expirySeconds,
        signedHeaders: { 'content-type': contentType, ...(contentLength === undefined ? {} : { 'content-length': String(contentLength) }) },
      });
    },

    async presignGet(bucket, key, expirySeconds, responseHeaders) {
      const query: Record<string, string> = {};
      if (responseHeaders?.contentType) query['response-content-type'] = responseHeaders.contentType;
      if (responseHeaders?.contentDisposition) query['response-content-disposition'] = responseHeaders.contentDisposition;
      if (responseHeaders?.cacheControl) query['response-cache-control'] = responseHeaders.cacheControl;
      return presignUrl({
        method: 'GET',
        endpoint: config.publicEndpoint,
        bucket,
        key,
        region: config.region,
        accessKey: config.accessKey,
        secretKey: config.secretKey,
        sessionToken: config.sessionToken,
        expirySeconds,
        query,
      });
    },

    async putFile(bucket, key, source, contentType) {
      const meta = { 'Content-Type': contentType };
      if (typeof source === 'string') await client.fPutObject(bucket, key, source, meta);
      else if (Buffer.isBuffer(source)) await client.putObject(bucket, key, source, source.length, meta);
      else await client.putObject(bucket, key, source, undefined, meta);
    },

    async stat(bucket, key) {
      try {
        const s = await client.statObject(bucket, key);
        const contentType = (s.metaData['content-type'] as string | undefined) ?? null;
        return { size: s.size, contentType, etag: s.etag, lastModified: s.lastModified };
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    listObjects,

    async remove(bucket, key) {
      // S3 DELETE of a missing key already succeeds; a missing bucket counts as gone too.
      try {
        await client.removeObject(bucket, key);
      } catch (err) {
        if (isNotFound(err) || (err as { code?: string }).code === 'NoSuchBucket') return;
        throw err;
      }
    },

    async removePrefix(bucket, prefix) {
      if (!prefix) throw new Error('removePrefix needs a non-empty prefix');
      const keys = await listKeys(bucket, prefix);
      await removeMany(bucket, keys);
      return keys.length;
    },

    removeMany,

    async getStream(bucket, key) {
      try {
        return await client.getObject(bucket, key);
      } catch (err) {
        if (isNotFound(err)) return null;
        throw err;
      }
    },

    async ping() {
      await client.listBuckets();
    },
  };
}
