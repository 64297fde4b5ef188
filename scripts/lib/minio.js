'use strict';
// MinIO: a binary built with `go install` at a pinned pseudo-version, cached, and run as a service.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { infrastructureEnv, Service } = require('./proc');
const { ensureGoBinary } = require('./goInstall');
const { waitForHttp } = require('./ports');

const MODULE = 'github.com/minio/minio';
const VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';

function cachedPath() {
  return path.join(binCacheDir(`minio-${VERSION}`), 'minio');
}

function ensureMinio(report) {
  return ensureGoBinary(report, { name: 'minio', module: MODULE, pkg: MODULE, version: VERSION, binary: cachedPath(), probeArgs: ['--version'] });
}

/**
 * @param {object} o
 * @param {string} o.binary
 * @param {string} o.dataDir
 * @param {number} o.port
 * @param {number} o.consolePort
 * @param {string} o.user
 * @param {string} o.password
 * @param {string} o.logFile
 */
function createService({ binary, dataDir, port, consolePort, user, password, logFile }) {
  fs.mkdirSync(dataDir, { recursive: true });
  return new Service({
    name: 'minio',
    command: binary,
    args: ['server', dataDir, '--quiet', '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`],
    env: infrastructureEnv({ MINIO_ROOT_USER: user, MINIO_ROOT_PASSWORD: password, MINIO_UPDATE: 'off' }),
    logFile,
  });
}

function waitReady({ port, service }) {
  return waitForHttp(`http://127.0.0.1:${port}/minio/health/ready`, { timeoutMs: 60_000, service });
}

module.exports = { VERSION, ensureMinio, createService, waitReady };
