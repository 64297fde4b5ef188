import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { mayScrapeMetrics } from './metricsAccess';

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

export interface MetricsServerOptions {
  registry: Registry;
  host: string;
  port: number;
  bearerToken?: string;
  /** Runs before each scrape (the API samples the task-queue backlog). */
  beforeScrape?: () => Promise<void>;
  /** More exposition text appended to the registry's (the Temporal SDK's own metrics). */
  extra?: () => Promise<string>;
}

/**
 * A process's metrics endpoint on a port of its own: GET /metrics, nothing else. The port is for the operator's
 * network (never published to clients), so scrapers on loopback or a private network need no token.
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics\n');
      return;
    }
    if (!mayScrapeMetrics({ bearerToken: options.bearerToken, privateNetworks: true }, req.headers.authorization, req.socket.remoteAddress)) {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Forbidden\n');
      return;
    }
    exposition(options).then(
      (body) => res.writeHead(200, { 'content-type': options.registry.contentType }).end(body),
      (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function exposition(options: MetricsServerOptions): Promise<string> {
  await options.beforeScrape?.();
  const own = await options.registry.metrics();
  if (!options.extra) return own;
  const extra = await options.extra().catch(() => '');
  return extra ? `${own}\n${extra}` : own;
}
