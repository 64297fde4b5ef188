/**
 * An S3 client for a customer's endpoint, behind the address guard like every URL a client names: the endpoint's host
 * is resolved and checked once, and every connection of the client goes to that checked address (the agent's lookup
 * is pinned), so a DNS answer that changes afterwards cannot point it at an internal service.
 */
import http from 'node:http';
import https from 'node:https';
import * as Minio from 'minio';
import { checkOutboundUrl, pinnedLookup, type Resolver } from '../net/addressGuard';
import type { DestinationSettings } from './settings';

export interface GuardOptions {
  /** Private and loopback addresses too (development and tests); metadata addresses never. */
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Certificate authorities trusted instead of the system's (tests with an endpoint of their own). */
  ca?: string;
}

export type GuardedS3 =
  | { ok: true; client: Minio.Client; /** HTTPS */ secure: boolean; close(): void }
  | { ok: false; kind: 'invalid_url' | 'blocked_address' | 'unresolvable'; reason: string };

export async function openGuardedS3(settings: DestinationSettings, options: GuardOptions): Promise<GuardedS3> {
  const check = await checkOutboundUrl(settings.endpoint, {
    allowPrivate: options.allowPrivate,
    resolve: options.resolve,
    schemes: ['https:', 'http:'],
    what: 'destination endpoint',
  });
  if (!check.ok) return check;
  const useSSL = check.url.protocol === 'https:';
  const agentOptions = { keepAlive: false, lookup: pinnedLookup(check.address) as never };
  const agent = useSSL ? new https.Agent({ ...agentOptions, ...(options.ca ? { ca: options.ca } : {}) }) : new http.Agent(agentOptions);
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
  return { ok: true, client, secure: useSSL, close: () => agent.destroy() };
}
