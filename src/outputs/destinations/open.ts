/**
 * The destinations of one process, built once from its configuration: the API's configuration service and the
 * workers' `OpenDestinationBucket`, both over the same store and secret key.
 */
import type { Readable } from 'node:stream';
import type * as Minio from 'minio';
import type { Config } from '../../config';
import type { PrismaClient } from '../../db/prisma';
import { systemClock } from '../../lib/clock';
import type { DeliveryDestinations, DestinationBucket, OpenDestinationBucket } from './bucket';
import { openGuardedS3, type GuardOptions } from './guardedS3';
import { createProbeLimiter } from './probeLimit';
import { createSecretBox } from './secretBox';
import { createDestinationService, type DestinationService } from './service';
import { createDestinationStore, type DestinationStore } from './store';

/** The address guard of this process's destinations: `http:` only for private endpoints outside production. */
function guardFor(config: Config): GuardOptions {
  return { allowPrivate: config.destinations.allowPrivate, allowPlainHttp: config.destinations.allowPlainHttp };
}

/** Delivery's guard: also ends a request to the bucket that moves no byte for the request timeout. */
function deliveryGuardFor(config: Config): GuardOptions {
  return { ...guardFor(config), idleTimeoutMs: config.outputDelivery.requestTimeoutSeconds * 1000 };
}

function storeFor(config: Config, prisma: PrismaClient): DestinationStore {
  const key = config.destinations.secretKey;
  return createDestinationStore(prisma, key ? createSecretBox(key) : undefined);
}

export function destinationServiceFor(config: Config, prisma: PrismaClient): DestinationService {
  return createDestinationService({
    store: storeFor(config, prisma),
    guard: guardFor(config),
    probeTimeoutMs: config.destinations.probeTimeoutMs,
    probes: createProbeLimiter(prisma, config.destinations.probesPerHour),
    clock: systemClock,
    canSeal: config.destinations.secretKey !== undefined,
  });
}

/**
 * What output delivery is given to reach an account's bucket: reads the account's destination, opens its secret and
 * returns a bucket whose connections go to the endpoint's address as checked by the address guard at this open (a
 * destination whose endpoint now resolves to a refused address throws, and delivery retries later). Null when the
 * account has no destination.
 */
export function createOpenDestinationBucket(deps: { store: DestinationStore; guard: GuardOptions }): OpenDestinationBucket {
  return async (accountId) => {
    const destination = await deps.store.open(accountId);
    if (!destination) return null;
    const opened = await openGuardedS3(destination, deps.guard);
    if (!opened.ok) throw new Error(`account ${accountId}'s destination cannot be reached: ${opened.reason}`);
    const { client } = opened;
    const { bucket, prefix } = destination;
    const under = (key: string) => {
      if (!key.startsWith(prefix) || key.length === prefix.length) throw new Error(`destination key ${key} is not under the prefix "${prefix}"`);
      return key;
    };
    const destinationBucket: DestinationBucket = {
      prefix,
      async put(key, body, sizeBytes, contentType) {
        await putInOneRequest(client, destination.region, bucket, under(key), body, sizeBytes, contentType);
      },
      async stat(key) {
        try {
          const stat = await client.statObject(bucket, under(key));
          return { sizeBytes: stat.size, etag: stat.etag.replace(/"/g, '') };
        } catch (err) {
          const code = (err as { code?: string }).code;
          if (code === 'NotFound' || code === 'NoSuchKey') return null;
          throw err;
        }
      },
    };
    return destinationBucket;
  };
}

/**
 * One PUT of exactly `sizeBytes`, never a multipart upload (whose ETag is no digest of the bytes). A stream body goes
 * through unsigned (`UNSIGNED-PAYLOAD`, see openGuardedS3) as the socket takes it, so no more than the stream's and the
 * socket's buffers of it is in memory at once, over HTTPS and plain HTTP alike.
 */
async function putInOneRequest(client: Minio.Client, region: string, bucket: string, key: string, body: Buffer | Readable, sizeBytes: number, contentType: string) {
  const headers = { 'Content-Type': contentType };
  if (Buffer.isBuffer(body)) {
    await client.putObject(bucket, key, body, sizeBytes, headers);
    return;
  }
  const response = await client.makeRequestStreamAsync(
    { method: 'PUT', bucketName: bucket, objectName: key, headers: { ...headers, 'Content-Length': String(sizeBytes) } },
    body,
    '',
    [200],
    region,
  );
  response.resume();
}

/** The `OpenDestinationBucket` of a worker process: built once at start and injected into delivery's activities. */
export function openDestinationBucketFor(config: Config, prisma: PrismaClient): OpenDestinationBucket {
  return createOpenDestinationBucket({ store: storeFor(config, prisma), guard: deliveryGuardFor(config) });
}

/** What a worker's output delivery is given: whether an account has a destination (PostgreSQL only) and its bucket. */
export function deliveryDestinationsFor(config: Config, prisma: PrismaClient): DeliveryDestinations {
  const store = storeFor(config, prisma);
  return {
    hasDestination: (accountId) => store.exists(accountId),
    open: createOpenDestinationBucket({ store, guard: deliveryGuardFor(config) }),
  };
}
