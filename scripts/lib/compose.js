'use strict';
// Docker Compose, only to validate docker-compose.yml in the tests (no Docker engine is needed for `config`).
// Uses the `docker compose` plugin when present; otherwise builds the pinned Compose v2 from its Go module once and
// caches it. Without a docker client there is nothing to do: the compose test skips and says why.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');

const MODULE = 'github.com/docker/compose/v2';
const VERSION = 'v2.40.3';

function cachedPath() {
  return path.join(binCacheDir(`docker-compose-${VERSION}`), 'docker-compose');
}

function pluginWorks() {
  return which('docker') !== null && capture('docker', ['compose', 'version']).status === 0;
}

function reportedVersion(binary) {
  if (!fs.existsSync(binary)) return null;
  const match = /version (v\S+)/.exec(capture(binary, ['version']).stdout);
  return match ? match[1] : null;
}

/**
 * Returns the path of a standalone docker-compose binary, '' when `docker compose` works as it is or when there is no
 * docker client at all.
 */
function ensureCompose(report) {
  if (which('docker') === null) {
    report.cached('docker compose', 'no docker client on this machine; the compose test will be skipped');
    return '';
  }
  if (pluginWorks()) {
    report.cached('docker compose', 'docker compose plugin');
    return '';
  }
  const binary = cachedPath();
  if (reportedVersion(binary) === VERSION) {
    report.cached('docker compose', `${VERSION} at ${binary}`);
    return binary;
  }
  const go = which('go');
  if (!go) {
    throw new SetupError('the docker client has no compose plugin and Go is not installed to build one', 'install the Debian package docker-compose-plugin (Docker\'s apt repository) or Go');
  }
  // `go install` refuses modules whose go.mod has exclude directives, so build inside the downloaded module.
  report.installing('docker compose', `build ${MODULE}@${VERSION} with Go (a few minutes, once per machine)`);
  const download = capture(go, ['mod', 'download', '-json', `${MODULE}@${VERSION}`]);
  let sourceDir;
  try {
    sourceDir = JSON.parse(download.stdout).Dir;
  } catch {
    sourceDir = undefined;
  }
  if (download.status !== 0 || !sourceDir) {
    throw new SetupError(`cannot download ${MODULE}@${VERSION}: ${download.stderr.trim()}`, 'check the Go module proxy is reachable');
  }
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const build = capture(
    go,
    ['build', '-trimpath', '-ldflags', `-s -w -X ${MODULE}/internal.Version=${VERSION}`, '-o', binary, './cmd'],
    { cwd: sourceDir, env: { ...process.env, CGO_ENABLED: '0', GOFLAGS: '-mod=mod' } },
  );
  if (build.status !== 0 || reportedVersion(binary) !== VERSION) {
    throw new SetupError(`building docker compose failed:\n${build.stderr.trim().split('\n').slice(-10).join('\n')}`, 'install the docker compose plugin by hand');
  }
  report.installed('docker compose', binary);
  return binary;
}

module.exports = { VERSION, ensureCompose, reportedVersion };
