'use strict';
// `npm test`: bootstrap, a throw-away stack on free ports, vitest against it, teardown whatever happens. A run of
// projects that need no services (`npm run test:unit`) bootstraps only what they need and starts nothing.

const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const log = require('./lib/log');
const { bootstrap } = require('./lib/bootstrap');
const { Supervisor } = require('./lib/supervisor');
const { startInfrastructure } = require('./lib/infrastructure');
const { freePort } = require('./lib/ports');
const { REPO_ROOT } = require('./lib/paths');
const temporalRetention = require('./lib/temporalRetention');
const { delay, groupAlive, signalGroup } = require('./lib/proc');
const app = require('./lib/app');
const postgres = require('./lib/postgres');
const testProjects = require('./lib/testProjects');

const MINIO_USER = 'genmedia-test';
const MINIO_PASSWORD = 'genmedia-test-secret';
const NAMESPACE = 'default';

async function planTestStack(binaries, workDir) {
  const taken = new Set();
  return {
    logDir: path.join(workDir, 'logs'),
    postgres: {
      binDir: binaries.postgresBinDir,
      dataDir: path.join(workDir, 'postgres'),
      port: await freePort(taken),
      fast: true,
    },
    // The Web UI is served too: the browser tests look at jobs in it as an operator would.
    temporal: { binary: binaries.temporalCli, port: await freePort(taken), uiPort: await freePort(taken), namespace: NAMESPACE },
    minio: {
      binary: binaries.minio,
      dataDir: path.join(workDir, 'minio'),
      port: await freePort(taken),
      consolePort: await freePort(taken),
      user: MINIO_USER,
      password: MINIO_PASSWORD,
    },
  };
}

/** The tuning every process of a run starts from: the built-in provider's jobs at a hundredth of their nominal time. */
const RUN_TUNING = { providers: { timeScale: 0.01 } };

/**
 * The file GENMEDIA_TEST_TUNING names for the run (src/lib/tuning.ts), named by its content as test/support/stack.ts
 * names the files it writes, so concurrent runs share it.
 */
function runTuningFile() {
  const text = JSON.stringify(RUN_TUNING);
  const file = path.join(os.tmpdir(), `genmedia-test-tuning-${crypto.createHash('sha256').update(text).digest('hex').slice(0, 16)}.json`);
  if (!fs.existsSync(file)) {
    const partial = `${file}.${process.pid}.${crypto.randomUUID()}`;
    fs.writeFileSync(partial, text);
    fs.renameSync(partial, file);
  }
  return file;
}

/** What every test run sets, with or without a stack. */
function baseTestEnv(binaries) {
  return {
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.LOG_LEVEL || 'error',
    GENMEDIA_TEST_TUNING: runTuningFile(),
    // Each run encrypts destination secrets under a key of its own.
    DESTINATION_SECRET_KEY: process.env.DESTINATION_SECRET_KEY || crypto.randomBytes(32).toString('base64'),
    ...(binaries.temporalCli ? { TEMPORAL_CLI_PATH: binaries.temporalCli } : {}),
    // The retention the stack's Temporal was given, for the tests that check it and the dev servers tests start.
    [temporalRetention.VARIABLE]: temporalRetention.namespaceRetention().text,
  };
}

function testEnv(plan, binaries) {
  return {
    ...baseTestEnv(binaries),
    GENMEDIA_DATA_DIR: path.join(path.dirname(plan.logDir), 'data'),
    DATABASE_URL: postgres.databaseUrl(plan.postgres.port),
    TEMPORAL_ADDRESS: `127.0.0.1:${plan.temporal.port}`,
    TEMPORAL_NAMESPACE: NAMESPACE,
    TEMPORAL_UI_URL: `http://127.0.0.1:${plan.temporal.uiPort}`,
    CHROMIUM_PATH: binaries.chromium || '',
    MINIO_ENDPOINT: `http://127.0.0.1:${plan.minio.port}`,
    MINIO_ACCESS_KEY: MINIO_USER,
    MINIO_SECRET_KEY: MINIO_PASSWORD,
    DOCKER_COMPOSE_CLI: binaries.composeCli || '',
    SCHEMATHESIS_CLI: binaries.schemathesisCli || '',
    PYTHON_CLIENTS_PYTHON: binaries.pythonClientsPython || '',
    REDOCLY_CLI: binaries.redoclyCli || '',
    COG_PYTHON: binaries.cogPython || '',
    PROMTOOL_CLI: binaries.promtoolCli || '',
    HELM3_CLI: binaries.helm3Cli || '',
    HELM4_CLI: binaries.helm4Cli || '',
    KUBECONFORM_CLI: binaries.kubeconformCli || '',
    KUBE_SCHEMA_LOCATIONS: binaries.kubeSchemaLocations ? JSON.stringify(binaries.kubeSchemaLocations) : '',
    TEMPORAL_CLUSTER_BINARIES: binaries.temporalCluster ? JSON.stringify(binaries.temporalCluster) : '',
  };
}

function prepareDatabase(env) {
  if (!app.exists('prismaCli')) {
    log.warn(`test database not migrated: ${app.FILES.prismaCli} does not exist yet`);
    return;
  }
  log.info('test database: migrate deploy');
  app.migrate(env);
  if (!app.exists('seed')) {
    log.warn(`test catalog not seeded: ${app.FILES.seed} does not exist yet`);
    return;
  }
  log.info('test database: seeding the catalog');
  app.seed(env);
}

/**
 * Vitest runs in its own process group so that, once it has exited, whatever it left behind (a fork stuck in a
 * shutdown) can be stopped too. Signals reach it through `interrupt`.
 */
function runInOwnGroup(nodeArgs, env) {
  const child = spawn(process.execPath, nodeArgs, { cwd: REPO_ROOT, env, stdio: 'inherit', detached: true });
  const exit = new Promise((resolve) => {
    child.on('close', (code, signal) => resolve(code === null ? (signal === 'SIGINT' ? 130 : 1) : code));
    child.on('error', (err) => {
      log.error(`cannot start ${nodeArgs.join(' ')}: ${err.message}`);
      resolve(1);
    });
  }).then(async (code) => {
    for (let i = 0; i < 50 && groupAlive(child.pid); i += 1) {
      signalGroup(child.pid, i < 20 ? 'SIGTERM' : 'SIGKILL');
      await delay(100);
    }
    return code;
  });
  let interrupts = 0;
  const interrupt = (signal) => {
    interrupts += 1;
    signalGroup(child.pid, interrupts > 1 ? 'SIGKILL' : signal);
  };
  return { exit, interrupt };
}

function vitestArgs(args) {
  const vitest = path.join(path.dirname(require.resolve('vitest/package.json', { paths: [REPO_ROOT] })), 'vitest.mjs');
  return [vitest, 'run', ...args];
}

/**
 * `npm test`: vitest with the given arguments, against a throw-away stack when the projects it runs need services,
 * with the test-only tools when they need those.
 */
function test(args) {
  const projects = testProjects.projectsOfRun(args);
  const needs = testProjects.needsOf(projects);
  log.info(`test projects: ${projects.join(', ')}`);
  if (!needs.services) return withoutStack(args, needs);
  return withTestStack((env) => runInOwnGroup(vitestArgs(args), env), { buildConsole: true, forTests: needs.extras });
}

async function withoutStack(args, needs) {
  let child = null;
  let interrupted = null;
  const onSignal = (signal) => {
    interrupted = signal;
    if (child) child.interrupt(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const binaries = bootstrap({ infrastructure: false, temporalCli: needs.temporalCli });
  if (interrupted !== null) return 130;
  child = runInOwnGroup(vitestArgs(args), baseTestEnv(binaries));
  const exitCode = await child.exit;
  return interrupted !== null && exitCode === 0 ? 130 : exitCode;
}

/** `npm run bench`: the benchmarks under bench/ against a throw-away stack; they print their own figures. */
function bench(args) {
  // The Temporal server on PostgreSQL too: the submit benchmark measures it beside the dev server.
  return withTestStack((env) => runInOwnGroup(['--import', 'tsx', path.join('bench', 'run.ts'), ...args], { ...env, LOG_LEVEL: 'error' }), {
    withCluster: true,
  });
}

async function withTestStack(runner, options = {}) {
  const startedAt = Date.now();
  const binaries = bootstrap({ managedPostgres: true, forTests: Boolean(options.forTests), withCluster: Boolean(options.withCluster) });
  if (options.buildConsole) {
    app.buildConsole();
    log.ok(`console built into console/dist (${log.seconds(Date.now() - startedAt)})`);
  }
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-test-'));
  fs.chmodSync(workDir, 0o755); // the postgres system user must reach its cluster inside
  const supervisor = new Supervisor();
  let interrupted = null;
  let child = null;
  const onSignal = (signal) => {
    interrupted = signal;
    log.warn(`${signal} received, tearing the test stack down`);
    if (child) child.interrupt(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  let exitCode = 1;
  try {
    const plan = await planTestStack(binaries, workDir);
    fs.mkdirSync(plan.logDir, { recursive: true });
    supervisor.onUnexpectedExit((service) => {
      log.error(`${service.name} of the test stack ${service.describeExit()}\n${service.tail(30)}`);
    });
    await startInfrastructure(supervisor, plan);
    const env = testEnv(plan, binaries);
    prepareDatabase(env);
    log.info(`test stack ready (${log.seconds(Date.now() - startedAt)}): postgres :${plan.postgres.port}, temporal :${plan.temporal.port} (UI :${plan.temporal.uiPort}), minio :${plan.minio.port}`);
    if (interrupted === null) {
      child = runner(env);
      exitCode = await child.exit;
    }
  } catch (err) {
    log.error(err.message);
    exitCode = 1;
  } finally {
    await supervisor.stopAll();
    if (process.env.GENMEDIA_KEEP_TEST_DATA === '1') log.info(`test data kept in ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
    log.info(`test stack stopped (${log.seconds(Date.now() - startedAt)} in all)`);
  }
  if (interrupted !== null && exitCode === 0) exitCode = 130;
  return exitCode;
}

module.exports = { test, bench };
