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
  /** More exposition text appended to the registry's (the Temporal SDK's own metrics). */
  extra?: () => Promise<string>;
}

/** A worker process's metrics endpoint: GET /metrics, nothing else. */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || new URL(req.url ?? '/', 'http://x').pathname !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics\n');
      return;
    }
    if (!mayScrapeMetrics(options.bearerToken, req.headers.authorization, req.socket.remoteAddress)) {
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
  const own = await options.registry.metrics();
  if (!options.extra) return own;
  const extra = await options.extra().catch(() => '');
  return extra ? `${own}\n${extra}` : own;
}
