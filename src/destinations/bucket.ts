/**
 * A customer's own S3-compatible bucket, as output delivery writes to it. The account's destination settings
 * (endpoint, bucket, prefix, credentials) stay behind this interface: delivery sees only object keys under the
 * customer's prefix.
 */
import type { Readable } from 'node:stream';

export interface DestinationObject {
  sizeBytes: number;
  /** The object's ETag as the bucket reports it, without quotes. */
  etag: string;
}

export interface DestinationBucket {
  /** The key prefix the customer chose: empty, or ending in `/`. Delivery puts every key under it. */
  readonly prefix: string;
  /** Writes one object of exactly `sizeBytes` bytes in a single request. */
  put(key: string, body: Buffer | Readable, sizeBytes: number, contentType: string): Promise<void>;
  /** The object's size and ETag, or null when it does not exist. */
  stat(key: string): Promise<DestinationObject | null>;
}

/** The account's destination bucket, or null when the account has none configured. */
export type OpenDestinationBucket = (accountId: string) => Promise<DestinationBucket | null>;
