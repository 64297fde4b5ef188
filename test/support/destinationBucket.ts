/**
 * A DestinationBucket over a real S3 API with the `minio` client, for tests of delivery: what the destination
 * configuration opens for an account, without its settings and encryption.
 */
import type * as Minio from 'minio';
import type { DeliveryDestinations, DestinationBucket } from '../../src/outputs/destinations/bucket';

const MISSING = new Set(['NotFound', 'NoSuchKey', 'NoSuchObject']);

export function minioDestinationBucket(client: Minio.Client, bucket: string, prefix: string): DestinationBucket {
  return {
    prefix,
    async put(key, body, sizeBytes, contentType) {
      // Up to the client's part size (64 MiB and more) this is one PUT.
      await client.putObject(bucket, key, body, sizeBytes, { 'Content-Type': contentType });
    },
    async stat(key) {
      try {
        const stat = await client.statObject(bucket, key);
        return { sizeBytes: stat.size, etag: stat.etag };
      } catch (err) {
        if (MISSING.has((err as { code?: string }).code ?? '')) return null;
        throw err;
      }
    },
  };
}

/** Destinations of the accounts a test gives one; every other account has none. */
export function testDestinations(): DeliveryDestinations & { set(accountId: string, bucket: DestinationBucket): void } {
  const buckets = new Map<string, DestinationBucket>();
  return {
    set: (accountId, bucket) => void buckets.set(accountId, bucket),
    hasDestination: async (accountId) => buckets.has(accountId),
    open: async (accountId) => buckets.get(accountId) ?? null,
  };
}
