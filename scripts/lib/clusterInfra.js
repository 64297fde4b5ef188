'use strict';
// `npm run cluster`: the Temporal server on PostgreSQL and its UI server, started beside the dev infrastructure.

const path = require('node:path');
const log = require('./log');
const postgres = require('./postgres');
const temporal = require('./temporal');
const cluster = require('./temporalCluster');
const { waitForHttp } = require('./ports');

const DATABASES = { main: 'temporal', visibility: 'temporal_visibility' };

/** The server's fixed ports beside the frontend's (Temporal's usual layout: 7233 frontend, 7234 history, ...). */
function clusterPorts(frontendPort) {
  return {
    frontend: frontendPort,
    history: frontendPort + 1,
    matching: frontendPort + 2,
    worker: frontendPort + 6,
    frontendHttp: frontendPort + 10,
    // Temporal keeps membership ports as smallint: below 32768.
    membership: [6933, 6934, 6935, 6939],
  };
}

function portsToCheck(frontendPort) {
  const ports = clusterPorts(frontendPort);
  return [
    { name: 'Temporal history', port: ports.history, variable: 'TEMPORAL_PORT' },
    { name: 'Temporal matching', port: ports.matching, variable: 'TEMPORAL_PORT' },
    { name: 'Temporal worker service', port: ports.worker, variable: 'TEMPORAL_PORT' },
    { name: 'Temporal HTTP', port: ports.frontendHttp, variable: 'TEMPORAL_PORT' },
    ...ports.membership.map((port) => ({ name: 'Temporal membership', port, variable: '(fixed)' })),
  ];
}

/**
 * Applies the schema, starts the server and the UI server, registers the namespace and genmedia's search attributes.
 * @param {import('./supervisor').Supervisor} supervisor
 * @param {object} o
 * @param {{ server: string, sqlTool: string, ui: string, schemaDir: string }} o.binaries
 * @param {string} o.temporalCli  the temporal CLI, for health checks and namespace administration
 */
async function startTemporalCluster(supervisor, { binaries, temporalCli, pgPort, port, uiPort, namespace, dataDir, logDir }) {
  const credentials = { pgPort, user: postgres.ROLE, password: postgres.PASSWORD };
  cluster.setupSchemas({ sqlTool: binaries.sqlTool, schemaDir: binaries.schemaDir, databases: DATABASES, ...credentials });
  log.ok(`temporal: schema ${cluster.SERVER_VERSION} in PostgreSQL databases ${DATABASES.main}, ${DATABASES.visibility}`);
  const address = `127.0.0.1:${port}`;
  const server = supervisor.start(
    cluster.createServerService({
      binary: binaries.server,
      dir: path.join(dataDir, 'temporal-server'),
      logFile: path.join(logDir, 'temporal-server.log'),
      databases: DATABASES,
      ports: clusterPorts(port),
      ...credentials,
    }),
  );
  log.info(`temporal: server ${cluster.SERVER_VERSION} starting on ${address} (${cluster.NUM_HISTORY_SHARDS} history shards)`);
  await temporal.waitReady({ binary: temporalCli, address, service: server });
  const prepared = await cluster.prepareNamespace({ cli: temporalCli, address, namespace });
  if (prepared.namespaceCreated) log.info(`temporal: registered namespace ${namespace}`);
  if (prepared.searchAttributesCreated.length > 0) log.info(`temporal: created search attributes ${prepared.searchAttributesCreated.join(', ')}`);
  const ui = supervisor.start(
    cluster.createUiService({ binary: binaries.ui, dir: path.join(dataDir, 'temporal-ui'), port: uiPort, frontendPort: port, logFile: path.join(logDir, 'temporal-ui.log') }),
  );
  await waitForHttp(`http://127.0.0.1:${uiPort}/`, { timeoutMs: 60_000, service: ui });
  log.ok(`temporal ready on ${address}, UI on 127.0.0.1:${uiPort}`);
}

module.exports = { startTemporalCluster, portsToCheck, clusterPorts };
