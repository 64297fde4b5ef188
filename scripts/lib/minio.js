'use strict';
// MinIO: a binary built with `go install` at a pinned pseudo-version, cached, and run as a service.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which, Service } = require('./proc');
const { SetupError } = require('./log');
const { waitForHttp } = require('./ports');

const MODULE = 'github.com/minio/minio';
const VERSION = 'v0.0.0-20260212201848-7aac2a2c5b7c';

function cachedPath() {
  return path.join(binCacheDir(`minio-${VERSION}`), 'minio');
}

/**
 * The module version recorded in the binary's build info (`go version -m`), or, without Go, whether the binary runs.
 * Returns the version string, 'unknown' when it runs but Go is not there to read the build info, or null.
 */
function builtVersion(binary) {
  if (!fs.existsSync(binary)) return null;
  if (capture(binary, ['--version']).status !== 0) return null;
  const go = which('go');
  if (!go) return 'unknown';
  const info = capture(go, ['version', '-m', binary]);
  const match = new RegExp(`^\\s*mod\\s+${MODULE.replace(/\./g, '\\.')}\\s+(\\S+)`, 'm').exec(info.stdout);
  return match ? match[1] : null;
}

function ensureMinio(report) {
  const binary = cachedPath();
  const found = builtVersion(binary);
  if (found === VERSION || found === 'unknown') {
    report.cached('minio', `${VERSION} at ${binary}`);
    return binary;
  }
  const go = which('go');
  if (!go) {
    throw new SetupError(`MinIO missing (${binary}) and Go is not installed`, `install Go 1.24+ (Debian package golang or go.dev), then run this again`);
  }
  report.installing('minio', `go install ${MODULE}@${VERSION} (a few minutes, once per machine)`);
  const result = capture(go, ['install', `${MODULE}@${VERSION}`], {
    env: { ...process.env, CGO_ENABLED: '0', GOBIN: path.dirname(binary) },
  });
  if (result.status !== 0 || builtVersion(binary) !== VERSION) {
    throw new SetupError(`building MinIO failed:\n${result.stderr.trim().split('\n').slice(-10).join('\n')}`, `run: CGO_ENABLED=0 GOBIN=${path.dirname(binary)} go install ${MODULE}@${VERSION}`);
  }
  report.installed('minio', binary);
  return binary;
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
    env: { ...process.env, MINIO_ROOT_USER: user, MINIO_ROOT_PASSWORD: password, MINIO_UPDATE: 'off' },
    logFile,
  });
}

function waitReady({ port, service }) {
  return waitForHttp(`http://127.0.0.1:${port}/minio/health/ready`, { timeoutMs: 60_000, service });
}

module.exports = { VERSION, builtVersion, ensureMinio, createService, waitReady };
