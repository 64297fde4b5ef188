'use strict';
// Debian packages the stack needs (PostgreSQL server, ffmpeg; Chromium for the tests), installed with apt-get only when missing.

const { which, isRoot, runVisible } = require('./proc');
const { SetupError } = require('./log');

/**
 * @param report bootstrap report
 * @param {{ pkg: string, label: string, present: () => boolean }[]} wanted
 */
function ensureDebianPackages(report, wanted) {
  const missing = [];
  for (const item of wanted) {
    if (item.present()) report.cached(item.label, `Debian package ${item.pkg}`);
    else missing.push(item);
  }
  if (missing.length === 0) return;

  const names = missing.map((item) => item.pkg);
  const manual = `apt-get update && apt-get install -y ${names.join(' ')}`;
  if (!which('apt-get')) {
    throw new SetupError(`missing: ${names.join(', ')}, and apt-get is not available`, `install ${names.join(', ')} with your system's package manager`);
  }
  let prefix = [];
  if (!isRoot()) {
    if (!which('sudo')) throw new SetupError(`missing: ${names.join(', ')}`, `as root: ${manual}`);
    prefix = ['sudo', '-n'];
  }
  const run = (args) => {
    const [command, ...rest] = [...prefix, 'apt-get', ...args];
    return runVisible(command, rest, { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  report.installing(names.join(', '), 'apt-get install');
  if (run(['update']) !== 0 || run(['install', '-y', '--no-install-recommends', ...names]) !== 0) {
    throw new SetupError(`could not install ${names.join(', ')}`, `run as root: ${manual}`);
  }
  for (const item of missing) {
    if (!item.present()) throw new SetupError(`${item.pkg} was installed but ${item.label} is still not found`, manual);
    report.installed(item.label);
  }
}

module.exports = { ensureDebianPackages };
