'use strict';
// `npm run dev`: the whole stack on this machine, supervised until Ctrl-C / SIGTERM.
// `npm run cluster`: the production shape instead: the Temporal server on PostgreSQL with its UI server, two API
// processes, the workflow worker and one worker per provider, in its own data directory (.data/cluster), all running
// the built JavaScript of `npm run build` with plain node (built first when dist/ is missing or stale) and serving
// the built console.
//
// Policy: a child that dies on its own is reported with the end of its log and the whole stack stops (exit 1), so a
// broken process is never hidden behind a half-working stack.

const fs = require('node:fs');
const path = require('node:path');
const log = require('./lib/log');
const { bootstrap, loadProjectConfig } = require('./lib/bootstrap');
const { Supervisor } = require('./lib/supervisor');
const { ProcessRecord, stopLeftovers } = require('./lib/processRecord');
const { startInfrastructure } = require('./lib/infrastructure');
const { requireFreePorts, waitForHttp } = require('./lib/ports');
const app = require('./lib/app');
const clusterInfra = require('./lib/clusterInfra');
const { builtProcessEnv, ensureBuilt } = require('./lib/build');
const { devDataDir } = require('./lib/paths');
const cogExample = require('./lib/cogExample');
const { destinationSecretKey } = require('./lib/devSecrets');
const { devProvenanceEnv } = require('./lib/provenanceChain');
const { devPorts, withDevAddresses } = require('./lib/devPorts');

/**
 * What to run, from src/config.ts and the dev stack's ports; a dependency given by URL in the environment is used as
 * it is, not started.
 */
function planFrom(config, dataDir, ports, binaries) {
  const managed = {
    postgres: !process.env.DATABASE_URL,
    temporal: !process.env.TEMPORAL_ADDRESS,
    minio: !process.env.MINIO_ENDPOINT,
  };
  return {
    managed,
    logDir: path.join(dataDir, 'logs'),
    postgres: managed.postgres
      ? { binDir: binaries.postgresBinDir, dataDir: path.join(dataDir, 'postgres'), port: ports.postgres }
      : null,
    temporal: managed.temporal
      ? {
          binary: binaries.temporalCli,
          port: ports.temporal,
          uiPort: ports.temporalUi,
          dbFile: path.join(dataDir, 'temporal', 'temporal.db'),
          namespace: config.temporal.namespace,
        }
      : null,
    minio: managed.minio
      ? {
          binary: binaries.minio,
          dataDir: path.join(dataDir, 'minio'),
          port: ports.minio,
          consolePort: ports.minioConsole,
          user: config.minio.accessKey,
          password: config.minio.secretKey,
        }
      : null,
  };
}

function childEnv(config, dataDir, { cluster }) {
  // METRICS_PORT is where the workers' ports start (workerMetricsPort); the API serves its metrics on PORT.
  const { METRICS_PORT: _workersFirstMetricsPort, ...inherited } = process.env;
  return {
    ...inherited,
    NODE_ENV: process.env.NODE_ENV || 'development',
    GENMEDIA_DATA_DIR: dataDir,
    API_HOST: config.api.host,
    PORT: String(config.api.port),
    DATABASE_URL: config.database.url,
    TEMPORAL_ADDRESS: config.temporal.address,
    TEMPORAL_NAMESPACE: config.temporal.namespace,
    TEMPORAL_UI_URL: config.temporal.uiUrl,
    MINIO_ENDPOINT: config.minio.endpoint,
    // The MinIO the stack starts has these as its root user (planFrom).
    MINIO_ACCESS_KEY: config.minio.accessKey,
    MINIO_SECRET_KEY: config.minio.secretKey,
    DESTINATION_SECRET_KEY: destinationSecretKey(dataDir),
    // Outputs are signed with a development chain of the data directory's, made on the first start.
    ...devProvenanceEnv(dataDir),
    // The cluster's processes run as the image runs them (see the Dockerfile).
    ...(cluster ? builtProcessEnv() : {}),
  };
}

function portsToCheck(config, ports, managed, { cluster }) {
  const checked = [{ name: 'API', port: config.api.port, variable: 'PORT' }];
  if (!cluster) checked.push({ name: 'console hot reload', port: ports.consoleHmr, variable: 'CONSOLE_HMR_PORT' });
  if (managed.postgres) checked.push({ name: 'PostgreSQL', port: ports.postgres, variable: 'PG_PORT' });
  if (managed.temporal) {
    checked.push({ name: 'Temporal', port: ports.temporal, variable: 'TEMPORAL_PORT' });
    checked.push({ name: 'Temporal UI', port: ports.temporalUi, variable: 'TEMPORAL_UI_PORT' });
  }
  if (managed.minio) {
    checked.push({ name: 'MinIO', port: ports.minio, variable: 'MINIO_PORT' });
    checked.push({ name: 'MinIO console', port: ports.minioConsole, variable: 'MINIO_CONSOLE_PORT' });
  }
  return checked;
}

/** Migrates and seeds; returns the dev credentials, or null when the entrypoints are not there yet. */
function prepareDatabase(env, { built }) {
  if (!app.exists('prismaCli')) {
    log.warn(`not migrating: ${app.FILES.prismaCli} does not exist yet`);
    return null;
  }
  log.info('database: node prisma/cli.js migrate deploy');
  app.migrate(env);
  if (!app.exists('seed')) {
    log.warn(`not seeding: ${app.FILES.seed} does not exist yet`);
    return null;
  }
  log.info('database: seeding catalog and dev account');
  const credentials = app.seed(env, { dev: true, built });
  if (!credentials || !credentials.apiKey) throw new Error(`${app.FILES.seed} --dev printed no {"accountId","apiKey"} line`);
  return credentials;
}

/** Each worker process serves its metrics on its own port: the workflow worker on the first, providers after it. */
function workerMetricsPort(index) {
  return Number(process.env.METRICS_PORT || 9464) + index;
}

/**
 * The workers, then the API (`apis` of them). `consoleOptions` is what the API is given of the dev stack's console:
 * `hmrPort` serves it from its sources with hot reload, `devKeyFile` fills its sign-in form with the dev key saved there.
 */
function startApplication(supervisor, env, logDir, { apis = 1, built = false, consoleOptions = {} } = {}) {
  const started = { api: false, apiUrls: [], workers: [], metrics: [] };
  if (app.exists('workers')) {
    const withMetricsPort = (index, name) => {
      started.metrics.push(`${name} :${workerMetricsPort(index)}`);
      return { ...env, METRICS_PORT: String(workerMetricsPort(index)) };
    };
    supervisor.start(app.workflowWorkerService(withMetricsPort(0, 'workflows'), logDir, { built }));
    started.workers.push('workflows');
    const providers = app.listProviders(env, { built });
    providers.forEach((id, i) => {
      supervisor.start(app.providerWorkerService(id, withMetricsPort(i + 1, id), logDir, { built }));
      started.workers.push(id);
    });
    supervisor.start(app.cogWorkerService(withMetricsPort(providers.length + 1, 'cog'), logDir, { built }));
    started.workers.push('cog (self-hosted providers)');
  } else {
    log.warn(`workers not started: ${app.FILES.workers} does not exist yet`);
  }
  if (app.exists('api')) {
    for (let i = 0; i < apis; i += 1) {
      const port = Number(env.PORT) + i;
      supervisor.start(app.devApiService({ ...env, PORT: String(port) }, logDir, i === 0 ? 'api' : `api-${i + 1}`, { built, ...consoleOptions }));
      started.apiUrls.push(`http://${env.API_HOST}:${port}`);
    }
    started.api = true;
  } else {
    log.warn(`API not started: ${app.FILES.api} does not exist yet`);
  }
  return started;
}

function printSummary(config, dataDir, ports, started, credentials, startedAt, cluster, cogModel) {
  const b = log.colors.bold;
  const lines = [
    '',
    b(`genmedia ${cluster ? 'cluster' : 'dev stack'} is up (${log.seconds(Date.now() - startedAt)})`),
    `  API             ${started.api ? started.apiUrls.join(', ') : '(not started)'}`,
    `  Console         ${started.api ? `${config.api.publicBaseUrl}/console/   (sign-in filled in with the dev key)` : '(not started)'}`,
    `  OpenAPI         ${started.api ? `${config.api.publicBaseUrl}/openapi.json` : '(not started)'}`,
    `  OpenAI API      ${started.api ? `${config.api.publicBaseUrl}/openai/v1   (base_url of the openai SDKs, docs/compatible-apis.md)` : '(not started)'}`,
    `  Replicate API   ${started.api ? `${config.api.publicBaseUrl}/replicate   (base_url of replicate.Client, docs/compatible-apis.md)` : '(not started)'}`,
    `  Temporal UI     ${config.temporal.uiUrl}   (gRPC ${config.temporal.address}, namespace ${config.temporal.namespace}${cluster ? ', server on PostgreSQL' : ''})`,
    `  MinIO console   http://127.0.0.1:${ports.minioConsole}   (S3 ${config.minio.endpoint}, user ${config.minio.accessKey})`,
    `  PostgreSQL      ${config.database.url}`,
    `  Workers         ${started.workers.length > 0 ? started.workers.join(', ') : '(not started)'}`,
    ...(cogModel ? [`  Cog example     ${cogModel.url}   (model ${cogModel.slug}, docs/self-hosted.md)`] : []),
    `  Metrics         ${started.api ? `${config.api.publicBaseUrl}/metrics` : '(API not started)'}; workers on 127.0.0.1 ${started.metrics.join(', ') || '-'}`,
  ];
  if (credentials) {
    lines.push(`  Dev account     ${credentials.accountId}`);
    lines.push(`  Dev API key     ${credentials.apiKey}`);
    if (credentials.adminApiKey) lines.push(`  Dev admin key   ${credentials.adminApiKey}   (scope admin: /v1/admin and the operator console; ${path.join(dataDir, 'dev-admin-key.json')})`);
    lines.push('', `  try: curl -H 'x-api-key: ${credentials.apiKey}' ${config.api.publicBaseUrl}/v1/models`);
  }
  lines.push(`  Logs            ${path.join(dataDir, 'logs')}`, '', 'Ctrl-C stops everything.', '');
  console.log(lines.join('\n'));
}


/** @param {{ cluster?: boolean }} [options] */
async function dev({ cluster = false } = {}) {
  const startedAt = Date.now();
  const withCog = cogExample.wanted();
  const binaries = bootstrap({ withCluster: cluster, withCog });
  if (cluster) {
    await ensureBuilt();
    app.buildConsole();
    log.ok('console built into console/dist');
  }
  const ports = devPorts(process.env);
  const dataDir = devDataDir({ cluster });
  const config = loadProjectConfig(withDevAddresses(process.env, ports));
  const plan = planFrom(config, dataDir, ports, binaries);
  const temporalCluster = cluster && plan.temporal ? { ...plan.temporal, binaries: binaries.temporalCluster } : null;
  if (temporalCluster) plan.temporal = null;
  const leftovers = await stopLeftovers(dataDir);
  if (leftovers.length > 0) log.warn(`stopped what an earlier npm run ${cluster ? 'cluster' : 'dev'} left running: ${leftovers.join(', ')}`);
  const env = childEnv(config, dataDir, { cluster });
  const checked = portsToCheck(config, ports, plan.managed, { cluster });
  if (temporalCluster) checked.push(...clusterInfra.portsToCheck(ports.temporal));
  if (cluster) checked.push({ name: 'second API', port: config.api.port + 1, variable: 'PORT' });
  if (withCog) checked.push({ name: 'example Cog server', port: cogExample.examplePort(), variable: 'COG_EXAMPLE_PORT' });
  await requireFreePorts(checked);
  fs.mkdirSync(plan.logDir, { recursive: true });

  const supervisor = new Supervisor({ record: new ProcessRecord(dataDir) });
  let stopping = null;
  const shutdown = (code) => {
    if (stopping === null) {
      stopping = supervisor.stopAll().then(() => {
        log.info('everything stopped');
        process.exit(code);
      });
    }
    return stopping;
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      log.info(`${signal} received, stopping the stack`);
      shutdown(0);
    });
  }
  supervisor.onUnexpectedExit((service) => {
    log.error(`${service.name} ${service.describeExit()}; stopping the stack`);
    const tail = service.tail(30);
    if (tail) console.error(tail);
    shutdown(1);
  });

  try {
    await startInfrastructure(supervisor, plan);
    if (temporalCluster) {
      await clusterInfra.startTemporalCluster(supervisor, {
        binaries: temporalCluster.binaries,
        temporalCli: binaries.temporalCli,
        pgPort: ports.postgres,
        port: temporalCluster.port,
        uiPort: temporalCluster.uiPort,
        namespace: temporalCluster.namespace,
        dataDir,
        logDir: plan.logDir,
      });
    }
    const credentials = prepareDatabase(env, { built: cluster });
    if (withCog) supervisor.start(cogExample.cogExampleService(binaries.cogPython, env, plan.logDir));
    // The dev stack serves the console from its sources, with hot reload; the cluster its build, as production does.
    // Both fill its sign-in form with the dev key the seed saved (src/accounts/devAccount.ts).
    const consoleOptions = {
      ...(cluster ? {} : { hmrPort: ports.consoleHmr }),
      ...(credentials ? { devKeyFile: path.join(dataDir, 'dev-api-key.json') } : {}),
    };
    const started = startApplication(supervisor, env, plan.logDir, { apis: cluster ? 2 : 1, built: cluster, consoleOptions });
    const apiUrl = `http://${config.api.host}:${config.api.port}`;
    if (started.api) {
      log.info(`waiting for ${config.api.publicBaseUrl}/readyz`);
      await waitForHttp(`${apiUrl}/readyz`, { timeoutMs: 120_000, intervalMs: 500 });
    }
    let cogModel = null;
    if (withCog && started.api) {
      // Registered through the operator API with the dev admin key, as an operator would; the Cog worker serves its
      // provider within seconds.
      cogModel = await cogExample.registerExample({ ...env, GENMEDIA_BASE_URL: apiUrl });
      log.ok(`example Cog server on ${cogModel.url}, registered as ${cogModel.slug}`);
    }
    if (stopping === null) printSummary(config, dataDir, ports, started, credentials, startedAt, cluster, cogModel);
  } catch (err) {
    if (stopping !== null) return;
    log.error(err.message);
    await shutdown(1);
  }
}

module.exports = { dev };
