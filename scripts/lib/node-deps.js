'use strict';
// Node packages (npm ci when needed) and the generated Prisma client.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT } = require('./paths');
const { capture, runVisible } = require('./proc');
const { SetupError } = require('./log');
const { restoreNodeModules, saveNodeModules } = require('./nodeModulesCache');

const STAMP_DIR = path.join('node_modules', '.cache', 'genmedia');

function sha256(...parts) {
  const hash = crypto.createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest('hex');
}

function readOrNull(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function writeStamp(root, name, value) {
  const dir = path.join(root, STAMP_DIR);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, name), `${value}\n`);
}

function readStamp(root, name) {
  const text = readOrNull(path.join(root, STAMP_DIR, name));
  return text === null ? null : text.trim();
}

/**
 * Decides whether `npm ci` must run.
 * - no node_modules: install.
 * - installed under another Node major, or under one not recorded (before the major was recorded): install, so that
 *   npm and every package's install step ran on the Node that runs them.
 * - stamp equal to the lock file's hash: nothing to do.
 * - no stamp or another hash, but npm's own record (node_modules/.package-lock.json) is at least as new as the lock
 *   file: npm already installed this lock file (for example `npm install <pkg>`), adopt it.
 * - otherwise the lock file changed since the last install: install.
 */
function nodeModulesState(root = REPO_ROOT, nodeMajor = Number(process.versions.node.split('.')[0])) {
  const lockFile = path.join(root, 'package-lock.json');
  const lock = readOrNull(lockFile);
  if (lock === null) {
    throw new SetupError('package-lock.json is missing', 'restore it from version control');
  }
  const hash = sha256(lock);
  const nodeModules = path.join(root, 'node_modules');
  if (!fs.existsSync(nodeModules)) return { install: true, hash, reason: 'node_modules is missing' };
  const installedUnder = readStamp(root, 'node-major');
  if (installedUnder !== String(nodeMajor)) {
    const under = installedUnder === null ? 'an unrecorded Node' : `Node ${installedUnder}`;
    return { install: true, hash, reason: `node_modules was installed under ${under}, this is Node ${nodeMajor}` };
  }
  if (readStamp(root, 'package-lock.sha256') === hash) return { install: false, hash, reason: 'up to date' };
  const npmRecord = path.join(nodeModules, '.package-lock.json');
  if (fs.existsSync(npmRecord) && fs.statSync(npmRecord).mtimeMs >= fs.statSync(lockFile).mtimeMs) {
    return { install: false, adopt: true, hash, reason: 'installed by npm from the current lock file' };
  }
  return { install: true, hash, reason: 'package-lock.json changed since the last install' };
}

function ensureNodeModules(report, root = REPO_ROOT) {
  const state = nodeModulesState(root);
  if (!state.install) {
    if (state.adopt) writeStamp(root, 'package-lock.sha256', state.hash);
    report.cached('node packages', state.reason);
    return;
  }
  const nodeMajor = process.versions.node.split('.')[0];
  const cacheKey = `${state.hash}-node${nodeMajor}-${process.platform}-${process.arch}`;
  const fresh = !fs.existsSync(path.join(root, 'node_modules'));
  const restored = fresh ? restoreNodeModules(root, cacheKey) : 'none';
  if (restored === 'linked') {
    writeStamps(root, state.hash, nodeMajor);
    report.cached('node packages', `linked from the copy this machine installed of the same lock file on Node ${nodeMajor}`);
    return;
  }
  report.installing('node packages', `${state.reason}: npm ci${restored === 'stale' ? ' (the cached copy had a rewritten file and was removed)' : ''}`);
  const code = runVisible('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root });
  if (code !== 0) {
    throw new SetupError(`npm ci failed (exit ${code})`, 'check the npm registry is reachable, then run `npm ci` by hand to see the error');
  }
  writeStamps(root, state.hash, nodeMajor);
  saveNodeModules(root, cacheKey);
  report.installed('node packages', `npm ci on Node ${process.versions.node}`);
}

function writeStamps(root, hash, nodeMajor) {
  writeStamp(root, 'package-lock.sha256', hash);
  writeStamp(root, 'node-major', nodeMajor);
}

function prismaInputsHash(root) {
  const dir = path.join(root, 'prisma');
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.prisma')).sort() : [];
  const parts = [readStamp(root, 'package-lock.sha256') || ''];
  for (const file of files) parts.push(file, fs.readFileSync(path.join(dir, file), 'utf8'));
  parts.push(readOrNull(path.join(root, 'prisma.config.ts')) || '');
  return sha256(...parts);
}

/** npm 11 skips dependency install scripts, so the Prisma client is generated here, explicitly. */
function ensurePrismaClient(report, databaseUrl, root = REPO_ROOT) {
  const cli = path.join(root, 'prisma', 'cli.js');
  if (!fs.existsSync(cli)) {
    report.missing('prisma client', 'prisma/cli.js does not exist yet; client not generated');
    return;
  }
  const hash = prismaInputsHash(root);
  const generated = path.join(root, 'node_modules', '.prisma', 'client', 'default.js');
  if (readStamp(root, 'prisma-generate.sha256') === hash && fs.existsSync(generated)) {
    report.cached('prisma client', 'generated from the current schema');
    return;
  }
  report.installing('prisma client', 'node prisma/cli.js generate');
  const result = capture(process.execPath, [cli, 'generate'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  if (result.status !== 0) {
    throw new SetupError(`prisma generate failed:\n${result.stdout}${result.stderr}`, 'run `npm run db:generate` to see the error');
  }
  writeStamp(root, 'prisma-generate.sha256', hash);
  report.installed('prisma client');
}

module.exports = { nodeModulesState, ensureNodeModules, ensurePrismaClient };
