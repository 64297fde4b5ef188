'use strict';
// The production shape of Temporal on this machine: the Temporal server (frontend, history, matching and worker
// services in one process) with its persistence and visibility in PostgreSQL, and the Temporal UI server. Both are
// built from their Go modules at pinned versions and cached; the schema comes from the server module's own files,
// applied with its SQL tool (the same module).

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, infrastructureEnv, which, Service } = require('./proc');
const { SetupError } = require('./log');
const { ensureGoBinary } = require('./goInstall');
const { ensureSearchAttributes, ensureNamespaceRetention } = require('./temporal');
const { namespaceRetention } = require('./temporalRetention');
const fairness = require('./temporalFairness');

const SERVER_MODULE = 'go.temporal.io/server';
// The newest server release whose go.mod this machine's Go toolchain accepts.
const SERVER_VERSION = 'v1.30.4';
const UI_MODULE = 'github.com/temporalio/ui-server/v2';
const UI_VERSION = 'v2.55.0';
const NUM_HISTORY_SHARDS = 4;

/** The server, its SQL tool and the UI server; built once per machine (about 5 minutes). */
function ensureTemporalCluster(report) {
  const serverDir = binCacheDir(`temporal-server-${SERVER_VERSION}`);
  const server = ensureGoBinary(report, {
    name: 'temporal server',
    module: SERVER_MODULE,
    pkg: `${SERVER_MODULE}/cmd/server`,
    version: SERVER_VERSION,
    binary: path.join(serverDir, 'server'),
    probeArgs: ['--version'],
  });
  const sqlTool = ensureGoBinary(report, {
    name: 'temporal sql tool',
    module: SERVER_MODULE,
    pkg: `${SERVER_MODULE}/cmd/tools/sql`,
    version: SERVER_VERSION,
    binary: path.join(serverDir, 'sql'),
    probeArgs: ['--version'],
  });
  const ui = ensureGoBinary(report, {
    name: 'temporal ui server',
    module: UI_MODULE,
    pkg: `${UI_MODULE}/cmd/server`,
    version: UI_VERSION,
    binary: path.join(binCacheDir(`temporal-ui-server-${UI_VERSION}`), 'server'),
    probeArgs: ['--version'],
  });
  return { server, sqlTool, ui, schemaDir: path.join(moduleSource(SERVER_MODULE, SERVER_VERSION), 'schema', 'postgresql', 'v12') };
}

/** Where the Go module cache holds the module's files (downloaded if the build did not leave them). */
function moduleSource(module, version) {
  const go = which('go');
  if (!go) throw new SetupError(`the Temporal schema files need Go to fetch ${module}@${version}`, 'install Go 1.24+');
  const result = capture(go, ['mod', 'download', '-json', `${module}@${version}`]);
  const dir = result.status === 0 ? JSON.parse(result.stdout).Dir : undefined;
  if (!dir) throw new SetupError(`cannot fetch ${module}@${version}: ${result.stderr.trim()}`, 'check the Go module proxy is reachable');
  return dir;
}

/**
 * Creates the two databases and brings their schemas to the server's version (idempotent: a database that has a
 * schema is only updated).
 * @param {object} o
 * @param {string} o.sqlTool
 * @param {string} o.schemaDir      …/schema/postgresql/v12
 * @param {number} o.pgPort
 * @param {string} o.user
 * @param {string} o.password
 * @param {{ main: string, visibility: string }} o.databases
 */
function setupSchemas({ sqlTool, schemaDir, pgPort, user, password, databases }) {
  for (const [database, schema] of [
    [databases.main, 'temporal'],
    [databases.visibility, 'visibility'],
  ]) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(pgPort), '-u', user, '--pw', password, '--db', database];
    const run = (args) => {
      const result = capture(sqlTool, [...base, ...args], { env: infrastructureEnv() });
      if (result.status !== 0) throw new Error(`temporal sql tool ${args[0]} on ${database} failed: ${(result.stderr || result.stdout).trim()}`);
      return result;
    };
    const created = capture(sqlTool, [...base, 'create-database'], { env: infrastructureEnv() });
    if (created.status !== 0 && !/already exists/i.test(created.stderr + created.stdout)) {
      throw new Error(`cannot create database ${database}: ${(created.stderr || created.stdout).trim()}`);
    }
    if (created.status === 0) run(['setup-schema', '-v', '0.0']);
    run(['update-schema', '-d', path.join(schemaDir, schema, 'versioned')]);
  }
}

/**
 * The server's configuration: every service in one process on loopback, PostgreSQL for persistence and visibility.
 * @param {object} o
 * @param {{ frontend: number, frontendHttp: number, history: number, matching: number, worker: number, membership: number[] }} o.ports
 */
function serverConfig({ pgPort, user, password, databases, ports, dynamicConfigFile }) {
  const store = (database, maxConns) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `127.0.0.1:${pgPort}`,
      connectProtocol: 'tcp',
      user,
      password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort, membershipPort, extra = {}) => ({ rpc: { grpcPort, membershipPort, bindOnIP: '127.0.0.1', ...extra } });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'default',
      visibilityStore: 'visibility',
      numHistoryShards: NUM_HISTORY_SHARDS,
      datastores: { default: store(databases.main, 20), visibility: store(databases.visibility, 5) },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(ports.frontend, ports.membership[0], { httpPort: ports.frontendHttp }),
      history: service(ports.history, ports.membership[1]),
      matching: service(ports.matching, ports.membership[2]),
      worker: service(ports.worker, ports.membership[3]),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}`, httpAddress: `127.0.0.1:${ports.frontendHttp}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: dynamicConfigFile, pollInterval: '60s' },
  };
}

/**
 * The server as a supervised service; its configuration (JSON is YAML) and dynamic configuration go to `dir`.
 * @returns {Service}
 */
function createServerService({ binary, dir, logFile, ...config }) {
  fs.mkdirSync(dir, { recursive: true });
  const dynamicConfigFile = path.join(dir, 'dynamicconfig.yaml');
  // Custom search attributes on SQL visibility: enough for genmedia's six. Then fair share between accounts.
  fs.writeFileSync(dynamicConfigFile, `system.forceSearchAttributesCacheRefreshOnRead:\n  - value: true\n${fairness.dynamicConfigYaml()}`);
  const configFile = path.join(dir, 'temporal-server.yaml');
  fs.writeFileSync(configFile, JSON.stringify(serverConfig({ ...config, dynamicConfigFile }), null, 2));
  return new Service({ name: 'temporal-server', command: binary, args: ['--config-file', configFile, '--allow-no-auth', 'start'], env: infrastructureEnv(), logFile });
}

/** The UI server, pointed at the frontend. */
function createUiService({ binary, dir, port, frontendPort, logFile }) {
  const configDir = path.join(dir, 'ui-config');
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(
    path.join(configDir, 'development.yaml'),
    JSON.stringify({ temporalGrpcAddress: `127.0.0.1:${frontendPort}`, host: '127.0.0.1', port, enableUi: true, cors: { allowOrigins: [] } }, null, 2),
  );
  return new Service({ name: 'temporal-ui', command: binary, args: ['--root', dir, '--config', 'ui-config', '--env', 'development', 'start'], env: infrastructureEnv(), logFile });
}

/**
 * Registers `namespace` (the server starts with none but its system namespace) with the configured retention
 * (scripts/lib/temporalRetention.js), or sets that retention on the namespace that exists; idempotent.
 */
function ensureNamespace({ cli, address, namespace }) {
  const { text: retention } = namespaceRetention();
  const described = capture(cli, ['operator', 'namespace', 'describe', '--namespace', namespace, '--address', address], { env: infrastructureEnv() });
  if (described.status === 0) {
    ensureNamespaceRetention({ binary: cli, address, namespace });
    return false;
  }
  const created = capture(cli, ['operator', 'namespace', 'create', '--namespace', namespace, '--retention', retention, '--address', address], { env: infrastructureEnv() });
  if (created.status !== 0 && !/already exists|already registered/i.test(created.stderr + created.stdout)) {
    throw new Error(`cannot create namespace ${namespace}: ${(created.stderr || created.stdout).trim()}`);
  }
  return true;
}

/**
 * Registers `namespace` and genmedia's search attributes. A new namespace reaches every service of the server within
 * seconds; until then its search attributes cannot be created, so that step is retried.
 * @returns {Promise<{ namespaceCreated: boolean, searchAttributesCreated: string[] }>}
 */
async function prepareNamespace({ cli, address, namespace }) {
  const namespaceCreated = ensureNamespace({ cli, address, namespace });
  for (let attempt = 1; ; attempt += 1) {
    try {
      return { namespaceCreated, searchAttributesCreated: ensureSearchAttributes({ binary: cli, address, namespace }) };
    } catch (err) {
      if (attempt >= 60) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

module.exports = {
  SERVER_VERSION,
  UI_VERSION,
  NUM_HISTORY_SHARDS,
  ensureTemporalCluster,
  setupSchemas,
  createServerService,
  createUiService,
  prepareNamespace,
};
