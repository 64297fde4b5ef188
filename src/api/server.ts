import './instrument';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { Client } from '@temporalio/client';
import { closeTemporalConnection, lazyTemporalConnection } from '../lib/temporalConnection';
import { temporalConnectionOptions } from '../temporal/connectionOptions';
import { dropSigningKeyVariables, loadConfig, type Config } from '../config';
import { createPrisma } from '../db/prisma';
import { admissionGateFor } from '../jobs/admissionGate';
import { createJobEventHub } from '../jobs/events/hub';
import { createLogger } from '../logger';
import { createApiMetrics } from './metrics';
import type { ConsoleOptions } from './routes/console';
import { startMetricsServer, type MetricsServer } from '../observability/metricsServer';
import { startTracing } from '../observability/tracing';
import { createStorage } from '../storage/storage';
import { watchNewUploads } from '../uploads/newObjectWatcher';
import { createApp } from './app';
import { createKeyAuthenticator } from './auth';
import { apiScrapeSamplers } from './scrapeSamplers';
import { createOpenStreams } from './openStreams';
import type { ApiDeps } from './deps';

export interface RunningApi {
  url: string;
  /** GET /metrics on its own port (METRICS_PORT), when configured. */
  metricsUrl: string | undefined;
  server: http.Server;
  deps: ApiDeps;
  stop(): Promise<void>;
}

/** What the dev stack gives its API beside the configuration (scripts/devApi.js). */
export interface ApiOptions {
  /** The console from its sources and its sign-in form filled in; the dev key is ignored with NODE_ENV=production. */
  console?: ConsoleOptions;
}

/** Creates the process-wide clients. Temporal connects lazily so /readyz can report it down. */
export async function createApiDeps(config: Config, options: ApiOptions = {}): Promise<ApiDeps> {
  const logger = createLogger('api', config.logLevel);
  const prisma = createPrisma(config.database.url);
  const tracing = startTracing(config, 'genmedia-api');
  const connection = lazyTemporalConnection(temporalConnectionOptions(config.temporal));
  const temporal = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracing.clientInterceptors });
  const storage = createStorage(config.minio);
  storage.ensureBuckets().catch((err) => logger.warn({ err }, 'could not create buckets yet'));
  const events = createJobEventHub({ prisma, databaseUrl: config.database.url, logger });
  const keys = createKeyAuthenticator(prisma, { ttlMs: config.api.keyCacheTtlMs });
  const metrics = createApiMetrics();
  const openStreams = createOpenStreams(config.api.openStreams, (kind, delta) => metrics.openStreams.inc({ kind }, delta));
  const { devApiKey, ...sources } = options.console ?? {};
  // The dev key is the dev stack's: a production process never fills it in.
  const consoleOptions: ConsoleOptions = { ...sources, ...(devApiKey !== undefined && config.env !== 'production' ? { devApiKey } : {}) };
  return { config, prisma, temporal, storage, logger, events, keys, metrics, openStreams, admissions: admissionGateFor(config), console: consoleOptions };
}

/**
 * Keep-alive and header timeouts from the config. Node's 5 s default is shorter than a load balancer's idle timeout:
 * the balancer would send a request on a connection the API is closing, and answer 502.
 */
export function applyHttpTimeouts(server: http.Server, config: Pick<Config, 'api'>): void {
  server.keepAliveTimeout = config.api.keepAliveTimeoutMs;
  // A request's headers must be allowed to arrive for longer than the connection may idle before it.
  server.headersTimeout = config.api.keepAliveTimeoutMs + 1_000;
}

/** Binds `server` to `port` (0 = any free port) and returns its base URL. */
export async function listen(server: http.Server, port: number, host: string): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${address.address}:${address.port}`;
}

/** The API's metrics on a port of their own, off the port clients (and a reverse proxy) reach. */
async function startApiMetricsServer(deps: ApiDeps): Promise<MetricsServer | undefined> {
  const { apiMetricsPort: port, metricsHost: host, metricsBearerToken: bearerToken } = deps.config.observability;
  if (port === undefined) return undefined;
  const samplers = apiScrapeSamplers(deps);
  return startMetricsServer({ registry: deps.metrics.registry, host, port, bearerToken, beforeScrape: () => samplers.refresh() }).catch(
    (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EADDRINUSE') throw err;
      throw new Error(`METRICS_PORT ${port} is taken: give each API process its own (0 picks a free one)`);
    },
  );
}

/** The handle of a listening API (and its metrics port, when configured); `stop()` drains requests, then closes the clients. */
export async function runningApi(server: http.Server, url: string, deps: ApiDeps): Promise<RunningApi> {
  const metricsServer = await startApiMetricsServer(deps);
  deps.logger.info({ url, metrics: metricsServer?.url }, 'API listening');
  const uploadWatcher = watchNewUploads(deps);
  return {
    url,
    metricsUrl: metricsServer?.url,
    server,
    deps,
    async stop() {
      uploadWatcher.close();
      await metricsServer?.close();
      // Open event streams end first (clients reconnect elsewhere with Last-Event-ID), so the server can close.
      await deps.events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await deps.prisma.$disconnect();
      await closeTemporalConnection(deps.temporal.connection);
    },
  };
}

export async function startApiServer(deps: ApiDeps, port = deps.config.api.port, host = deps.config.api.host): Promise<RunningApi> {
  const server = http.createServer(createApp(deps));
  applyHttpTimeouts(server, deps.config);
  return runningApi(server, await listen(server, port, host), deps);
}

/** The API process: the configuration from the environment, `options` beside it; stops on SIGTERM and SIGINT. */
export async function runApi(options: ApiOptions = {}): Promise<void> {
  const config = loadConfig();
  // The API signs nothing: it never reads the signing key, and drops it from its environment if it was given.
  const droppedKeyVariables = dropSigningKeyVariables();
  const deps = await createApiDeps(config, options);
  if (droppedKeyVariables.length > 0) {
    deps.logger.warn({ variables: droppedKeyVariables }, 'the signing key is set for the API, which signs nothing: ignored; give it to the provider workers only');
  }
  const api = await startApiServer(deps);
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    api.stop().then(
      () => process.exit(0),
      (err) => {
        deps.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

if (require.main === module) {
  runApi().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
