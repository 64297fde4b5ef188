'use strict';
// Schemathesis (PyPI), the API fuzzer of the tests: a virtual environment in the cache, created once per machine.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');

const VERSION = '4.32.5';

function cachedCli() {
  return path.join(binCacheDir(`schemathesis-${VERSION}`), 'bin', 'st');
}

function reportsVersion(cli) {
  if (!fs.existsSync(cli)) return false;
  const result = capture(cli, ['--version']);
  return result.status === 0 && result.stdout.includes(VERSION);
}

/** Returns the path of the `st` command, installing schemathesis into its cached virtual environment when missing. */
function ensureSchemathesis(report) {
  const cli = cachedCli();
  if (reportsVersion(cli)) {
    report.cached('schemathesis', `${VERSION} at ${cli}`);
    return cli;
  }
  const python = which('python3');
  if (!python) throw new SetupError('schemathesis needs python3', 'install python3 (with the venv module)');
  const venv = path.dirname(path.dirname(cli));
  report.installing('schemathesis', `schemathesis ${VERSION} from PyPI into ${venv}`);
  fs.rmSync(venv, { recursive: true, force: true });
  const created = capture(python, ['-m', 'venv', venv]);
  if (created.status !== 0) throw new SetupError(`python3 -m venv failed: ${created.stderr.trim()}`, 'install the python3-venv package');
  const installed = capture(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${VERSION}`]);
  if (installed.status !== 0 || !reportsVersion(cli)) {
    throw new SetupError(`pip install schemathesis==${VERSION} failed: ${installed.stderr.trim().split('\n').pop()}`, 'check that PyPI is reachable');
  }
  report.installed('schemathesis', cli);
  return cli;
}

module.exports = { ensureSchemathesis };
