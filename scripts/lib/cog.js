'use strict';
// Cog (PyPI: `cog`, which brings `coglet`, its Rust prediction server) and Pillow for the example predictor in
// examples/cog/: a virtual environment in the cache, created once per machine. The tests run the real server from it,
// and `npm run dev` does when GENMEDIA_COG=1.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');

const COG_VERSION = '0.23.1';
const PILLOW_VERSION = '11.3.0';
const REQUIREMENTS = [`cog==${COG_VERSION}`, `pillow==${PILLOW_VERSION}`];

function cachedPython() {
  return path.join(binCacheDir(`cog-${COG_VERSION}`), 'bin', 'python');
}

function hasPackages(python) {
  if (!fs.existsSync(python)) return false;
  const probe = 'import importlib.metadata as m; print(m.version("cog"), m.version("coglet"), m.version("pillow"))';
  const result = capture(python, ['-c', probe]);
  return result.status === 0 && result.stdout.trim() === `${COG_VERSION} ${COG_VERSION} ${PILLOW_VERSION}`;
}

/**
 * Returns the `python` of the cached environment, installing cog and Pillow when missing. The server is started
 * as `<python> -m cog.server.http`, with the environment's `bin` first on PATH: it spawns its worker with the
 * `python3` it finds there.
 */
function ensureCog(report) {
  const python = cachedPython();
  if (hasPackages(python)) {
    report.cached('cog', `${COG_VERSION} at ${path.dirname(path.dirname(python))}`);
    return python;
  }
  const system = which('python3');
  if (!system) throw new SetupError('cog needs python3', 'install python3 (with the venv module)');
  const venv = path.dirname(path.dirname(python));
  report.installing('cog', `${REQUIREMENTS.join(' ')} from PyPI into ${venv}`);
  fs.rmSync(venv, { recursive: true, force: true });
  const created = capture(system, ['-m', 'venv', venv]);
  if (created.status !== 0) throw new SetupError(`python3 -m venv failed: ${created.stderr.trim()}`, 'install the python3-venv package');
  const installed = capture(path.join(venv, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', ...REQUIREMENTS]);
  if (installed.status !== 0 || !hasPackages(python)) {
    throw new SetupError(`pip install ${REQUIREMENTS.join(' ')} failed: ${installed.stderr.trim().split('\n').pop()}`, 'check that PyPI is reachable');
  }
  report.installed('cog', python);
  return python;
}

module.exports = { ensureCog, COG_VERSION };
