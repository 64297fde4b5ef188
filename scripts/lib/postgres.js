'use strict';
// A private PostgreSQL cluster for the project: initdb once, run as a supervised service, create role and database.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { asUser, capture, infrastructureEnv, isRoot, Service } = require('./proc');
const { SetupError } = require('./log');
const { waitUntil } = require('./ports');

const ROLE = 'genmedia';
const PASSWORD = 'genmedia';
const DATABASE = 'genmedia';
const SYSTEM_USER = 'postgres';

/** Highest installed server version's bin directory, e.g. /usr/lib/postgresql/15/bin, or null. */
function findBinDir(root = '/usr/lib/postgresql') {
  let versions = [];
  try {
    versions = fs.readdirSync(root);
  } catch {
    return null;
  }
  const withServer = versions
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
    .sort((a, b) => Number(b) - Number(a));
  return withServer.length > 0 ? path.join(root, withServer[0], 'bin') : null;
}

function systemUserIds(user) {
  const line = fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${user}:`));
  if (!line) {
    throw new SetupError(`system user "${user}" does not exist`, 'reinstall the Debian package postgresql (it creates the user)');
  }
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** The cluster directory must belong to whoever runs the server, with mode 0700. */
function prepareDirectory(dir) {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (isRoot()) {
    const { uid, gid } = systemUserIds(SYSTEM_USER);
    fs.chownSync(dir, uid, gid);
    const probe = capture(...asUser(SYSTEM_USER, 'test', ['-w', dir]));
    if (probe.status !== 0) {
      throw new SetupError(
        `the ${SYSTEM_USER} system user cannot reach ${dir}`,
        'let others traverse its parent folders (chmod o+x) or set GENMEDIA_DATA_DIR to a folder it can reach',
      );
    }
  }
  fs.chmodSync(dir, 0o700);
}

function isInitialized(dataDir) {
  return fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** Creates the cluster with `genmedia` as its superuser. Returns false when it already existed. */
function initCluster(binDir, dataDir, { fast = false } = {}) {
  if (isInitialized(dataDir)) return false;
  prepareDirectory(dataDir);
  const pwDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-pw-'));
  const pwFile = path.join(pwDir, 'password');
  try {
    fs.writeFileSync(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (isRoot()) {
      const { uid, gid } = systemUserIds(SYSTEM_USER);
      fs.chownSync(pwDir, uid, gid);
      fs.chownSync(pwFile, uid, gid);
    }
    const args = ['-D', dataDir, '-U', ROLE, `--pwfile=${pwFile}`, '-A', 'scram-sha-256', '-E', 'UTF8', '--no-locale'];
    if (fast) args.push('--no-sync');
    const result = capture(...asUser(SYSTEM_USER, path.join(binDir, 'initdb'), args));
    if (result.status !== 0) {
      throw new SetupError(`initdb failed for ${dataDir}:\n${result.stdout}${result.stderr}`, `remove ${dataDir} and try again`);
    }
  } finally {
    fs.rmSync(pwDir, { recursive: true, force: true });
  }
  return true;
}

/**
 * @param {object} o
 * @param {string} o.binDir
 * @param {string} o.dataDir
 * @param {number} o.port
 * @param {string} o.logFile
 * @param {boolean} [o.fast] durability off: for throw-away test clusters
 */
function createService({ binDir, dataDir, port, logFile, fast = false }) {
  const settings = {
    listen_addresses: '127.0.0.1',
    unix_socket_directories: '',
    max_connections: '200',
  };
  if (fast) Object.assign(settings, { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' });
  const args = ['-D', dataDir, '-p', String(port)];
  for (const [key, value] of Object.entries(settings)) args.push('-c', `${key}=${value}`);
  const [command, finalArgs] = asUser(SYSTEM_USER, path.join(binDir, 'postgres'), args);
  // SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for every client to disconnect).
  return new Service({ name: 'postgres', command, args: finalArgs, env: infrastructureEnv(), logFile, stopSignal: 'SIGINT' });
}

function psql(binDir, port, database, sql) {
  return capture(path.join(binDir, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', ROLE, '-d', database, '-v', 'ON_ERROR_STOP=1', '-tAc', sql], {
    env: infrastructureEnv({ PGPASSWORD: PASSWORD, PGCONNECT_TIMEOUT: '3' }),
  });
}

async function waitReady(binDir, port, service) {
  await waitUntil(`PostgreSQL on port ${port}`, async () => psql(binDir, port, 'postgres', 'select 1').status === 0, {
    timeoutMs: 60_000,
    service,
  });
}

async function ensureDatabase(binDir, port) {
  const exists = psql(binDir, port, 'postgres', `select 1 from pg_database where datname = '${DATABASE}'`);
  if (exists.status !== 0) throw new Error(`cannot query PostgreSQL on port ${port}: ${exists.stderr}`);
  if (exists.stdout.trim() === '1') return false;
  const created = psql(binDir, port, 'postgres', `create database ${DATABASE} owner ${ROLE}`);
  if (created.status !== 0) throw new Error(`cannot create database ${DATABASE}: ${created.stderr}`);
  return true;
}

function databaseUrl(port) {
  return `postgresql://${ROLE}:${PASSWORD}@127.0.0.1:${port}/${DATABASE}`;
}

module.exports = { ROLE, PASSWORD, findBinDir, initCluster, createService, waitReady, ensureDatabase, databaseUrl, isInitialized };
