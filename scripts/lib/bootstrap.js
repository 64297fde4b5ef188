'use strict';
// Makes sure everything the stack needs is on this machine, installing only what is missing.

const fs = require('node:fs');
const log = require('./log');
const { which } = require('./proc');
const nodeRuntime = require('./nodeRuntime');
const reexec = require('./reexec');
const nodeDeps = require('./node-deps');
const { ensureDebianPackages } = require('./debian');
const postgres = require('./postgres');
const temporal = require('./temporal');
const minio = require('./minio');
const compose = require('./compose');
const schemathesis = require('./schemathesis');
const cog = require('./cog');
const pythonClients = require('./pythonClients');
const redocly = require('./redocly');
const promtool = require('./promtool');
const helm = require('./helm');
const kubeconform = require('./kubeconform');
const kubeSchemas = require('./kubeSchemas');
const temporalCluster = require('./temporalCluster');
const c2paNode = require('./c2paNode');

class Report {
  constructor() {
    this.cachedItems = [];
    this.installedItems = [];
    this.missingItems = [];
  }

  cached(name, detail) {
    this.cachedItems.push(name);
    log.ok(`${name}: ${detail}`);
  }

  installing(name, detail) {
    log.info(`${name}: installing (${detail})`);
  }

  installed(name, detail) {
    this.installedItems.push(name);
    log.ok(`${name}: installed${detail ? ` (${detail})` : ''}`);
  }

  /** Something the project itself has not provided yet; not fatal for the bootstrap. */
  missing(name, detail) {
    this.missingItems.push(name);
    log.warn(`${name}: ${detail}`);
  }
}

/** The Node running the bootstrap runs everything after it (scripts/lib/reexec.js made sure of that). */
function checkNode(report) {
  if (!nodeRuntime.isSupported()) {
    throw new log.SetupError(`genmedia runs on Node ${nodeRuntime.MAJOR} and this is ${process.version}`, 'start it through scripts/run.js (npm run ...), which provides it');
  }
  const handover = reexec.takeHandover();
  const running = `${process.version} at ${process.execPath}`;
  if (handover === null) report.cached('node', running);
  else if (handover.installed) report.installed('node', `${running}; this machine has ${handover.machineNode}`);
  else report.cached('node', `${running} (provided; this machine has ${handover.machineNode})`);
}

/**
 * @param {object} [options]
 * @param {boolean} [options.infrastructure] PostgreSQL, ffmpeg, Temporal and MinIO (false: only the Node part, node
 *   packages and the Prisma client, which is all the unit tests need)
 * @param {boolean} [options.temporalCli] the Temporal CLI (by default with the infrastructure; the workflow tests
 *   need it alone, for the dev server each of their files starts)
 * @param {boolean} [options.managedPostgres] run our own PostgreSQL cluster (false when DATABASE_URL points elsewhere)
 * @param {boolean} [options.forTests] also what only the tests need (docker compose, to validate docker-compose.yml;
 *   promtool, to check the Prometheus configuration and rules; the Temporal server on PostgreSQL, for its restart
 *   test; Chromium, for the browser tests of the Temporal Web UI; the Python clients and Redocly CLI, which use and
 *   lint the OpenAPI document; Helm 3 and 4, kubeconform and the Kubernetes, KEDA and Prometheus Operator schemas, to
 *   lint, render and validate the chart of deploy/helm)
 * @param {boolean} [options.withCluster] also the Temporal server and UI server of `npm run cluster`
 * @param {boolean} [options.withCog] also the Cog prediction server (PyPI) that runs examples/cog (always with forTests)
 * @returns {{ node: { version: string, execPath: string }, postgresBinDir: string|null, temporalCli: string|undefined,
 *   minio: string|undefined, composeCli: string|undefined,
 *   schemathesisCli: string|undefined, promtoolCli: string|undefined, pythonClientsPython: string|undefined,
 *   redoclyCli: string|undefined, cogPython: string|undefined, helm3Cli: string|undefined, helm4Cli: string|undefined,
 *   kubeconformCli: string|undefined, kubeSchemaLocations: string[]|undefined,
 *   temporalCluster: { server: string, sqlTool: string, ui: string, schemaDir: string }|undefined,
 *   chromium: string|null, c2paNode: string,
 *   installed: string[], cached: string[], missing: string[], elapsedMs: number }}
 */
function bootstrap({
  infrastructure = true,
  temporalCli: withTemporalCli = infrastructure,
  managedPostgres = infrastructure && !process.env.DATABASE_URL,
  forTests = false,
  withCluster = false,
  withCog = false,
} = {}) {
  const started = Date.now();
  const report = new Report();
  log.info('bootstrap: checking what this machine has');

  checkNode(report);
  nodeDeps.ensureNodeModules(report);
  nodeDeps.ensurePrismaClient(report, process.env.DATABASE_URL || postgres.databaseUrl(54329));
  const c2paNodeBinary = c2paNode.ensureC2paNode(report);

  const packages = infrastructure ? [{ pkg: 'ffmpeg', label: 'ffmpeg', present: () => which('ffmpeg') !== null }] : [];
  if (managedPostgres) {
    packages.unshift({ pkg: 'postgresql', label: 'postgresql server', present: () => postgres.findBinDir() !== null });
  }
  if (forTests) {
    packages.push({ pkg: 'chromium', label: 'chromium', present: () => which('chromium') !== null });
    // The CLI is tested in a real terminal.
    packages.push({ pkg: 'tmux', label: 'tmux', present: () => which('tmux') !== null });
    // docs/operators.md's curl walkthrough is run as written.
    packages.push({ pkg: 'curl', label: 'curl', present: () => which('curl') !== null });
    packages.push({ pkg: 'jq', label: 'jq', present: () => which('jq') !== null });
  }
  ensureDebianPackages(report, packages);

  const temporalCli = withTemporalCli ? temporal.ensureTemporalCli(report) : undefined;
  const minioBinary = infrastructure ? minio.ensureMinio(report) : undefined;
  const composeCli = forTests ? compose.ensureCompose(report) : undefined;
  const schemathesisCli = forTests ? schemathesis.ensureSchemathesis(report) : undefined;
  const pythonClientsPython = forTests ? pythonClients.ensurePythonClients(report) : undefined;
  const redoclyCli = forTests ? redocly.ensureRedocly(report) : undefined;
  const cogPython = forTests || withCog ? cog.ensureCog(report) : undefined;
  const promtoolCli = forTests ? promtool.ensurePromtool(report) : undefined;
  const helm3Cli = forTests ? helm.ensureHelm(report, 'helm3') : undefined;
  const helm4Cli = forTests ? helm.ensureHelm(report, 'helm4') : undefined;
  const kubeconformCli = forTests ? kubeconform.ensureKubeconform(report) : undefined;
  const kubeSchemaLocations = forTests ? kubeSchemas.ensureKubeSchemas(report) : undefined;
  const cluster = forTests || withCluster ? temporalCluster.ensureTemporalCluster(report) : undefined;

  const elapsedMs = Date.now() - started;
  const summary =
    report.installedItems.length === 0
      ? `everything cached, nothing installed (${log.seconds(elapsedMs)})`
      : `installed ${report.installedItems.join(', ')} (${log.seconds(elapsedMs)})`;
  log.info(`bootstrap: ${summary}`);
  return {
    node: { version: process.version, execPath: process.execPath },
    postgresBinDir: managedPostgres ? postgres.findBinDir() : null,
    temporalCli,
    minio: minioBinary,
    composeCli,
    schemathesisCli,
    pythonClientsPython,
    redoclyCli,
    cogPython,
    promtoolCli,
    helm3Cli,
    helm4Cli,
    kubeconformCli,
    kubeSchemaLocations,
    temporalCluster: cluster,
    chromium: forTests ? which('chromium') : null,
    c2paNode: c2paNodeBinary,
    installed: report.installedItems,
    cached: report.cachedItems,
    missing: report.missingItems,
    elapsedMs,
  };
}

/** Loads src/config.ts through tsx (available once node packages are installed), so defaults live in one place. */
function loadProjectConfig(env = process.env) {
  const { REPO_ROOT } = require('./paths');
  const path = require('node:path');
  const configFile = path.join(REPO_ROOT, 'src', 'config.ts');
  if (!fs.existsSync(configFile)) throw new log.SetupError('src/config.ts is missing', 'restore it from version control');
  const tsx = require(require.resolve('tsx/cjs/api', { paths: [REPO_ROOT] }));
  const { loadConfig } = tsx.require(configFile, __filename);
  return loadConfig(env);
}

module.exports = { bootstrap, loadProjectConfig, Report };
