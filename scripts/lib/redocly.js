'use strict';
// Redocly CLI, the OpenAPI linter of the tests: installed from npm into the cache (not the project's node_modules),
// once per machine, at a pinned version.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');

const VERSION = '2.77.0';
const PREFIX = binCacheDir(`redocly-cli-${VERSION}`);
const PACKAGE_DIR = path.join(PREFIX, 'node_modules', '@redocly', 'cli');

function installedVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

/** Returns the path of Redocly CLI's entry script (run it with node), installing it when missing. */
function ensureRedocly(report) {
  const cli = path.join(PACKAGE_DIR, 'bin', 'cli.js');
  if (installedVersion() === VERSION && fs.existsSync(cli)) {
    report.cached('redocly cli', `${VERSION} at ${PREFIX}`);
    return cli;
  }
  const npm = which('npm');
  if (!npm) throw new SetupError('Redocly CLI is installed with npm, which is not on PATH', 'install Node.js with npm');
  report.installing('redocly cli', `npm install @redocly/cli@${VERSION} into ${PREFIX}`);
  fs.rmSync(PREFIX, { recursive: true, force: true });
  fs.mkdirSync(PREFIX, { recursive: true });
  const installed = capture(npm, ['install', '--prefix', PREFIX, '--no-audit', '--no-fund', '--loglevel=error', `@redocly/cli@${VERSION}`], {
    cwd: PREFIX,
  });
  if (installed.status !== 0 || installedVersion() !== VERSION) {
    throw new SetupError(`npm install @redocly/cli@${VERSION} failed: ${installed.stderr.trim().split('\n').pop()}`, 'check that the npm registry is reachable');
  }
  report.installed('redocly cli', cli);
  return cli;
}

module.exports = { VERSION, ensureRedocly };
