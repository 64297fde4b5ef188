'use strict';
const os = require('node:os');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Binaries are cached outside the clone so that a fresh clone on the same machine reuses them. */
function cacheRoot() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'genmedia');
}

function binCacheDir(name) {
  return path.join(cacheRoot(), 'bin', name);
}

module.exports = { REPO_ROOT, cacheRoot, binCacheDir };
