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

/**
 * What the destinations give output delivery, built by the process that runs it: whether an account has one (asked
 * when a job completes, from PostgreSQL alone, so completion never waits for a customer's bucket) and the bucket itself
 * (opened by each attempt).
 */
export interface DeliveryDestinations {
  hasDestination(accountId: string): Promise<boolean>;
  open: OpenDestinationBucket;
}

/** No account has a destination: completed jobs start no delivery. */
export const NO_DESTINATIONS: DeliveryDestinations = {
  hasDestination: async () => false,
  open: async () => null,
};
