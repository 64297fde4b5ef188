/**
 * The stack a chaos run breaks, built from the same parts as `npm run cluster` and `npm run dev` (scripts/lib).
 * `cluster` (the default) is the production shape: the Temporal server with its state in PostgreSQL, two API
 * processes, the workflow worker and a worker per provider. `dev` is the dev stack: the Temporal dev server on its
 * SQLite file and one API. Either way its own PostgreSQL, MinIO and data directory, on free ports.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TuningOverride } from '../src/config';
import { mergeTuning } from '../src/lib/tuning';
import { freeRestartPorts } from '../test/support/restartPort';

const { startInfrastructure } = require('../scripts/lib/infrastructure');
const postgres = require('../scripts/lib/postgres');
const temporal = require('../scripts/lib/temporal');
const temporalCluster = require('../scripts/lib/temporalCluster');
const minio = require('../scripts/lib/minio');
const app = require('../scripts/lib/app');
const { waitForHttp } = require('../scripts/lib/ports');

export type Topology = 'cluster' | 'dev';
export const TOPOLOGIES: readonly Topology[] = ['cluster', 'dev'];

const TEMPORAL_DATABASES = { main: 'temporal', visibility: 'temporal_visibility' };
/** A restarted application process comes back after this, as a restart policy would bring it back. */
const RESTART_DELAY_MS = 500;
/** Six Node processes starting at once on a busy 2-core machine. */
const READY_TIMEOUT_MS = 300_000;

export interface Stack {
  topology: Topology;
  /** The environment the application processes run with (database, Temporal, MinIO addresses). */
  env: NodeJS.ProcessEnv;
  /** Base URL of each API process, in the order of `apis`. */
  apiUrls: string[];
  apis: string[];
  workflowWorker: string;
  providerWorkers: string[];
  /** One line naming what runs. */
  description: string;
  /** SIGKILLs an application process (its whole group); it is started again shortly after. */
  kill(name: string): void;
  /** Stops the Temporal server gracefully and starts it again on the same state; resolves once it answers. */
  restartTemporal(): Promise<void>;
  restartPostgres(): Promise<void>;
  /** Stops MinIO, leaves it down for `downMs`, starts it again. */
  stopMinio(downMs: number): Promise<void>;
}

interface Binaries {
  postgresBinDir: string;
  temporalCli: string;
  minio: string;
  temporalCluster?: { server: string; sqlTool: string; schemaDir: string };
}

/** The stack's tuning as the file GENMEDIA_TEST_TUNING names for its processes. */
function writeTuning(workDir: string, tuning: TuningOverride): string {
  const file = path.join(workDir, 'tuning.json');
  fs.mkdirSync(workDir, { recursive: true });
  fs.writeFileSync(file, JSON.stringify(tuning));
  return file;
}

/** Starts everything under `supervisor`, whose `stopAll` (also after a failed start) stops it and ends the restarts. */
export async function startStack(input: {
  supervisor: any;
  topology: Topology;
  binaries: Binaries;
  workDir: string;
  logDir: string;
  /** Extra environment of the application processes (the webhook receiver's CA, upstream credentials and origins). */
  appEnv: NodeJS.ProcessEnv;
  /** Timeouts and intervals other than the features' defaults, besides the compressed webhook schedule. */
  tuning?: TuningOverride;
  /** Only these providers get a worker (default: every provider that can take jobs here). */
  providers?: string[];
  /** Upstreams call back to the first API (UPSTREAM_CALLBACK_BASE_URL), as they would to the public address. */
  upstreamCallbacks?: boolean;
}): Promise<Stack> {
  const { topology, binaries, workDir, logDir } = input;
  // Everything here is killed or restarted on its own ports, which therefore come from below the ephemeral range.
  const free = await freeRestartPorts(14);
  const port = () => free.pop()!;
  const pg = { binDir: binaries.postgresBinDir, dataDir: path.join(workDir, 'postgres'), port: port() };
  const store = { binary: binaries.minio, dataDir: path.join(workDir, 'minio'), port: port(), consolePort: port(), user: 'chaos', password: 'chaos-minio-secret' };
  const temporalPort = port();
  const apiPorts = [port()];
  if (topology === 'cluster') apiPorts.push(port());
  const { supervisor } = input;
  const stopping = () => supervisor.shuttingDown;

  const infrastructure = {
    postgres: () => postgres.createService({ ...pg, logFile: path.join(logDir, 'postgres.log') }),
    minio: () => minio.createService({ ...store, logFile: path.join(logDir, 'minio.log') }),
  };
  const temporalAddress = `127.0.0.1:${temporalPort}`;
  let createTemporal: () => any;
  if (topology === 'cluster') {
    const server = binaries.temporalCluster;
    if (!server) throw new Error('the cluster topology needs the Temporal server binaries (bootstrap withCluster)');
    const ports = {
      frontend: temporalPort,
      frontendHttp: port(),
      history: port(),
      matching: port(),
      worker: port(),
      membership: [port(), port(), port(), port()],
    };
    createTemporal = () =>
      temporalCluster.createServerService({
        binary: server.server,
        dir: path.join(workDir, 'temporal-server'),
        logFile: path.join(logDir, 'temporal-server.log'),
        databases: TEMPORAL_DATABASES,
        ports,
        pgPort: pg.port,
        user: postgres.ROLE,
        password: postgres.PASSWORD,
      });
    await startInfrastructure(supervisor, { logDir, postgres: pg, temporal: null, minio: store });
    temporalCluster.setupSchemas({ sqlTool: server.sqlTool, schemaDir: server.schemaDir, databases: TEMPORAL_DATABASES, pgPort: pg.port, user: postgres.ROLE, password: postgres.PASSWORD });
    const service = supervisor.start(createTemporal());
    await temporal.waitReady({ binary: binaries.temporalCli, address: temporalAddress, service });
    await temporalCluster.prepareNamespace({ cli: binaries.temporalCli, address: temporalAddress, namespace: 'default' });
  } else {
    const dev = { binary: binaries.temporalCli, port: temporalPort, dbFile: path.join(workDir, 'temporal', 'temporal.db'), namespace: 'default' };
    createTemporal = () => temporal.createService({ ...dev, logFile: path.join(logDir, 'temporal.log') });
    await startInfrastructure(supervisor, { logDir, postgres: pg, temporal: dev, minio: store });
  }

  const apiUrls = apiPorts.map((port) => `http://127.0.0.1:${port}`);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...input.appEnv,
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    GENMEDIA_DATA_DIR: workDir,
    DATABASE_URL: postgres.databaseUrl(pg.port),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: 'default',
    MINIO_ENDPOINT: `http://127.0.0.1:${store.port}`,
    MINIO_ACCESS_KEY: store.user,
    MINIO_SECRET_KEY: store.password,
    API_HOST: '127.0.0.1',
    PORT: String(apiPorts[0]),
    PUBLIC_BASE_URL: apiUrls[0],
    WEBHOOK_ALLOW_PRIVATE: '1',
    GENMEDIA_TEST_TUNING: writeTuning(workDir, mergeTuning({ providers: { timeScale: 0.02 }, webhooks: { retryScheduleSeconds: [0, 1, 2, 5, 10, 20, 30, 60] } }, input.tuning)),
    ...(input.upstreamCallbacks ? { UPSTREAM_CALLBACK_BASE_URL: apiUrls[0] } : {}),
  };
  app.migrate(env);
  app.seed(env);
  const available: string[] = app.listProviders(env);
  const missing = (input.providers ?? []).filter((id) => !available.includes(id));
  if (missing.length > 0) throw new Error(`providers ${missing.join(', ')} cannot take jobs here (inactive, or an upstream without its credential)`);
  const providers = input.providers ?? available;

  // Several worker processes on one host: each serves its metrics on a free port (the APIs serve theirs on PORT).
  const workerEnv = { ...env, METRICS_PORT: '0' };
  const apis = apiPorts.map((_, i) => (i === 0 ? 'api' : `api-${i + 1}`));
  const factories: Record<string, () => any> = {
    ...Object.fromEntries(
      apis.map((name, i) => [name, () => app.apiService({ ...env, PORT: String(apiPorts[i]), PUBLIC_BASE_URL: apiUrls[i] }, logDir, name)]),
    ),
    'worker:workflows': () => app.workflowWorkerService(workerEnv, logDir),
    ...Object.fromEntries(providers.map((id) => [`worker:${id}`, () => app.providerWorkerService(id, workerEnv, logDir)])),
  };
  const running: Record<string, any> = {};
  const startApp = (name: string) => {
    const service = supervisor.start(factories[name]());
    running[name] = service;
    service.exited.then(() => {
      if (!stopping() && running[name] === service) setTimeout(() => !stopping() && startApp(name), RESTART_DELAY_MS);
    });
  };
  for (const name of Object.keys(factories)) startApp(name);
  await Promise.all(apiUrls.map((url) => waitForHttp(`${url}/readyz`, { timeoutMs: READY_TIMEOUT_MS })));

  /** Stops an infrastructure service (gracefully), leaves it down for `downMs`, starts it again and waits for it. */
  const restart = async (name: string, create: () => any, ready: (service: any) => Promise<void>, downMs = 0) => {
    const current = supervisor.services.find((s: any) => s.name === name && s.running);
    if (current) await current.stop();
    await new Promise((r) => setTimeout(r, downMs));
    await ready(supervisor.start(create()));
  };

  return {
    topology,
    env,
    apiUrls,
    apis,
    workflowWorker: 'worker:workflows',
    providerWorkers: providers.map((id) => `worker:${id}`),
    description:
      topology === 'cluster'
        ? `cluster: Temporal server ${temporalCluster.SERVER_VERSION} on PostgreSQL, ${apis.length} APIs, workflow worker, provider workers ${providers.join(', ')}`
        : `dev: Temporal dev server on SQLite, 1 API, workflow worker, provider workers ${providers.join(', ')}`,
    kill(name) {
      try {
        process.kill(-running[name].pid, 'SIGKILL');
      } catch {
        // Already gone (it crashed or is between restarts): nothing to kill.
      }
    },
    restartTemporal: () =>
      restart(topology === 'cluster' ? 'temporal-server' : 'temporal', createTemporal, (service) =>
        temporal.waitReady({ binary: binaries.temporalCli, address: temporalAddress, service }),
      ),
    restartPostgres: () => restart('postgres', infrastructure.postgres, (service) => postgres.waitReady(pg.binDir, pg.port, service)),
    stopMinio: (downMs) => restart('minio', infrastructure.minio, (service) => minio.waitReady({ port: store.port, service }), downMs),
  };
}
