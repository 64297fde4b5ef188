'use strict';
// Binaries built with `go install <package>@<pinned version>` from the Go module proxy, cached per version.

const fs = require('node:fs');
const path = require('node:path');
const { capture, which } = require('./proc');
const { SetupError } = require('./log');

/**
 * The module version recorded in the binary's build info (`go version -m`), or, without Go, whether the binary runs
 * (`probeArgs`). Returns the version string, 'unknown' when it runs but Go is not there to read the build info, or null.
 */
function builtVersion(binary, module, probeArgs) {
  if (!fs.existsSync(binary)) return null;
  if (capture(binary, probeArgs).status !== 0) return null;
  const go = which('go');
  if (!go) return 'unknown';
  const info = capture(go, ['version', '-m', binary]);
  const match = new RegExp(`^\\s*mod\\s+${module.replace(/\./g, '\\.')}\\s+(\\S+)`, 'm').exec(info.stdout);
  return match ? match[1] : null;
}

/**
 * Returns `binary`, building it first unless the cached one was built from `module`@`version`.
 * @param {object} o
 * @param {string} o.name what the report calls it
 * @param {string} o.module the Go module
 * @param {string} o.pkg the package to install (the module or a command inside it)
 * @param {string} o.version pinned module version
 * @param {string} o.binary the cached binary's path (its directory is GOBIN)
 * @param {string[]} o.probeArgs arguments the binary answers with exit 0 (`--version`)
 */
function ensureGoBinary(report, { name, module, pkg, version, binary, probeArgs }) {
  const found = builtVersion(binary, module, probeArgs);
  if (found === version || found === 'unknown') {
    report.cached(name, `${version} at ${binary}`);
    return binary;
  }
  const go = which('go');
  if (!go) {
    throw new SetupError(`${name} missing (${binary}) and Go is not installed`, 'install Go 1.24+ (Debian package golang or go.dev), then run this again');
  }
  report.installing(name, `go install ${pkg}@${version} (a few minutes, once per machine)`);
  const result = capture(go, ['install', `${pkg}@${version}`], { env: { ...process.env, CGO_ENABLED: '0', GOBIN: path.dirname(binary) } });
  if (result.status !== 0 || builtVersion(binary, module, probeArgs) !== version) {
    throw new SetupError(
      `building ${name} failed:\n${result.stderr.trim().split('\n').slice(-10).join('\n')}`,
      `run: CGO_ENABLED=0 GOBIN=${path.dirname(binary)} go install ${pkg}@${version}`,
    );
  }
  report.installed(name, binary);
  return binary;
}

module.exports = { ensureGoBinary };
