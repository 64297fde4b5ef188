/**
 * An S3 client for a customer's endpoint, behind the address guard like every URL a client names: the endpoint's host
 * is resolved and checked once, and every connection of the client goes to that checked address (the agent's lookup
 * is pinned), so a DNS answer that changes afterwards cannot point it at an internal service. `https:` only, but for a
 * private endpoint in development and tests; and a connection that moves no byte for the idle timeout is ended, so a
 * bucket that stops answering fails the request instead of holding it.
 */
import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import * as Minio from 'minio';
import { checkOutboundUrl, classifyAddress, pinnedLookup, type Resolver } from '../../net/addressGuard';
import type { DestinationSettings } from './settings';

export interface GuardOptions {
  /** Private and loopback addresses too (development and tests); metadata addresses never. */
  allowPrivate: boolean;
  /** Plain `http:` for an endpoint on a private or loopback address (NODE_ENV development and test only). */
  allowPlainHttp?: boolean;
  resolve?: Resolver;
  /** Certificate authorities trusted instead of the system's (tests with an endpoint of their own). */
  ca?: string;
  /** A connection that sends and receives nothing for this long is destroyed, failing its request. */
  idleTimeoutMs?: number;
}

export type GuardedS3 =
  | { ok: true; client: Minio.Client; /** HTTPS */ secure: boolean; close(): void }
  | { ok: false; kind: 'invalid_url' | 'blocked_address' | 'unresolvable'; reason: string };

/** A destination connection that moved no byte for the idle timeout. */
export class DestinationTimeoutError extends Error {
  readonly code = 'DESTINATION_TIMEOUT';
  constructor(idleTimeoutMs: number) {
    super(`the destination sent and took no bytes for ${idleTimeoutMs / 1000} s; the request was ended`);
    this.name = 'DestinationTimeoutError';
  }
}

type ConnectionFactory = (options: unknown, callback?: unknown) => Duplex;

/** Makes every socket of `agent` end itself, with a DestinationTimeoutError, after `ms` without traffic. */
function withIdleTimeout<A extends http.Agent>(agent: A, ms: number | undefined): A {
  if (ms === undefined) return agent;
  const target = agent as unknown as { createConnection: ConnectionFactory };
  const create = target.createConnection.bind(agent);
  target.createConnection = (options, callback) => {
    const socket = create(options, callback) as Duplex & { setTimeout(ms: number, listener: () => void): void };
    socket.setTimeout(ms, () => socket.destroy(new DestinationTimeoutError(ms)));
    return socket;
  };
  return agent;
}

export async function openGuardedS3(settings: DestinationSettings, options: GuardOptions): Promise<GuardedS3> {
  const check = await checkOutboundUrl(settings.endpoint, {
    allowPrivate: options.allowPrivate,
    resolve: options.resolve,
    schemes: options.allowPlainHttp ? ['https:', 'http:'] : ['https:'],
    what: 'destination endpoint',
  });
  if (!check.ok) return check;
  const useSSL = check.url.protocol === 'https:';
  // Plain HTTP carries the customer's outputs unencrypted: only to an endpoint on this machine or its private network.
  if (!useSSL && classifyAddress(check.address.address) === null) {
    return { ok: false, kind: 'invalid_url', reason: `destination endpoint URL must use https:// (plain http:// is only for a private endpoint in development)` };
  }
  const agentOptions = { keepAlive: false, lookup: pinnedLookup(check.address) as never };
  const agent = withIdleTimeout(
    useSSL ? new https.Agent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) }) : new http.Agent(agentOptions),
    options.idleTimeoutMs,
  );
  const client = new Minio.Client({
    endPoint: check.hostname,
    port: check.url.port ? Number(check.url.port) : useSSL ? 443 : 80,
    useSSL,
    region: settings.region,
    accessKey: settings.accessKeyId,
    secretKey: settings.secretAccessKey,
    // The host stays the one that was checked (no bucket subdomain resolved apart from it).
    pathStyle: true,
    // A put of up to 5 GiB goes in one request (its ETag is then the bytes' MD5), never as a multipart upload.
    partSize: 5 * 1024 ** 3,
    transportAgent: agent,
    // A failed request is retried by whoever asked (the probe's caller, delivery's durable retries), never here:
    // a stream body cannot be sent twice.
    retryOptions: { disableRetry: true },
  });
  // Payloads go as UNSIGNED-PAYLOAD over plain HTTP too (the client signs their SHA-256 there by default, reading a
  // stream body whole into memory first): a body streams through a bounded buffer, and delivery verifies each copy by
  // its size and MD5 ETag afterwards.
  client.enableSHA256 = false;
  return { ok: true, client, secure: useSSL, close: () => agent.destroy() };
}
