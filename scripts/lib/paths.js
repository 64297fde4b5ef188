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

/**
 * The local state of `npm run dev` (its PostgreSQL cluster, Temporal database, MinIO data, logs, dev keys and
 * secrets): GENMEDIA_DATA_DIR, by default `.data/` of the repository; `npm run cluster` keeps its own, apart from the
 * dev stack's, in `.data/cluster/`. The processes the stack starts get it in GENMEDIA_DATA_DIR, where the seed saves
 * the dev keys and the genmedia CLI finds them (src/accounts/devAccount.ts).
 */
function devDataDir({ cluster = false } = {}, env = process.env) {
  return env.GENMEDIA_DATA_DIR || path.join(REPO_ROOT, '.data', ...(cluster ? ['cluster'] : []));
}

module.exports = { REPO_ROOT, cacheRoot, binCacheDir, devDataDir };
