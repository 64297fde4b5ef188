'use strict';
// A copy of node_modules kept outside the clone, one per lock file and Node major, so that a fresh clone on a machine
// that installed the same lock file before links it in at once instead of running `npm ci` again (about 30 s).
//
// The clone's files are hard links to the cached ones: linking 80,000 files takes about a second where copying them
// takes ten. A program that rewrote a linked file in place would change the cache too, so the cache records when it
// was made and is thrown away, not used, once any of its files is newer than that. What the bootstrap and the tools
// write into node_modules after the install (its stamps, the workflow bundle, the generated Prisma client, Vite's and
// vitest's caches) is left out of the cache, so those are always new files of the clone's own.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { cacheRoot } = require('./paths');

/** Written after the install, never part of the cache. */
const LEFT_OUT = ['.cache', '.prisma', '.vite', '.vitest'];
/** How many lock files' copies a machine keeps. */
const KEPT = 2;
const SAVED_AT = 'saved-at';

function cacheDir(key, root = cacheRoot()) {
  return path.join(root, 'node-modules', key);
}

/** Whether any regular file under `dir` was modified after `sinceMs`. */
function modifiedSince(dir, sinceMs) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (modifiedSince(full, sinceMs)) return true;
    } else if (entry.isFile() && fs.statSync(full).mtimeMs > sinceMs) {
      return true;
    }
  }
  return false;
}

function linkTree(from, to) {
  const result = spawnSync('cp', ['-al', from, to], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`cp -al ${from} ${to} failed: ${result.stderr || result.error}`);
}

/**
 * Links the cached node_modules of `key` into `repoRoot`. Returns 'linked', 'none' (no copy of this key), or 'stale'
 * (a cached file was rewritten since it was saved: the copy is removed and npm ci must run).
 */
function restoreNodeModules(repoRoot, key, root = cacheRoot()) {
  const dir = cacheDir(key, root);
  const tree = path.join(dir, 'node_modules');
  let savedAtMs;
  try {
    savedAtMs = Number(fs.readFileSync(path.join(dir, SAVED_AT), 'utf8'));
  } catch {
    return 'none';
  }
  if (!Number.isFinite(savedAtMs) || !fs.existsSync(tree) || modifiedSince(tree, savedAtMs)) {
    fs.rmSync(dir, { recursive: true, force: true });
    return 'stale';
  }
  linkTree(tree, path.join(repoRoot, 'node_modules'));
  return 'linked';
}

/** Keeps the clone's freshly installed node_modules as the copy of `key`, dropping the oldest copies beyond KEPT. */
function saveNodeModules(repoRoot, key, root = cacheRoot()) {
  const dir = cacheDir(key, root);
  const staging = `${dir}.saving-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  fs.mkdirSync(staging, { recursive: true });
  linkTree(path.join(repoRoot, 'node_modules'), path.join(staging, 'node_modules'));
  for (const name of LEFT_OUT) fs.rmSync(path.join(staging, 'node_modules', name), { recursive: true, force: true });
  fs.writeFileSync(path.join(staging, SAVED_AT), String(Date.now()));
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(staging, dir);

  const parent = path.dirname(dir);
  const copies = fs
    .readdirSync(parent)
    .filter((name) => !name.includes('.saving-'))
    .map((name) => ({ name, at: fs.statSync(path.join(parent, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { name } of copies.slice(KEPT)) fs.rmSync(path.join(parent, name), { recursive: true, force: true });
}

module.exports = { restoreNodeModules, saveNodeModules, LEFT_OUT };
