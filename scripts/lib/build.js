'use strict';
// The production build: the processes as plain JavaScript in dist/ (tsc with tsconfig.build.json), the SDK they import
// as @genmedia/client built into its own package (clients/typescript/dist, which the workspace link resolves), and the
// workflow bundles made once here instead of at every start of the workflow worker. dist/build-info.json holds a hash
// of everything the build reads, so a build that is current is not redone; one that is not recompiles only what
// changed (tsc --incremental, its build info kept in each dist/), and removes what a removed source had compiled to.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const log = require('./log');
const { ensurePrismaClient } = require('./node-deps');
const { REPO_ROOT, cacheRoot } = require('./paths');
const { capture } = require('./proc');

const DIST = path.join(REPO_ROOT, 'dist');
const SDK_DIST = path.join(REPO_ROOT, 'clients', 'typescript', 'dist');
const INFO_FILE = path.join(DIST, 'build-info.json');
/** Written by bundleWorkflows at build time; src/workers/workflowPaths.ts names the same files. */
/** The one workflow bundle: its tracing interceptors are bundled always and switched on or off by the worker. */
const BUNDLE = path.join(DIST, 'workflow-bundle.js');

const INPUT_DIRS = ['src', 'workflows', 'activities', path.join('clients', 'typescript', 'src')];
const INPUT_FILES = [
  'tsconfig.json',
  'tsconfig.build.json',
  path.join('clients', 'typescript', 'tsconfig.build.json'),
  'package-lock.json',
  path.join('prisma', 'schema.prisma'),
  path.join('scripts', 'lib', 'build.js'),
];
/** `prisma generate` connects to nothing; a URL only keeps the Prisma CLI from looking for a query engine. */
const GENERATE_DATABASE_URL = 'postgresql://build:build@localhost:5432/build';

function filesUnder(dir) {
  const entries = fs.readdirSync(path.join(REPO_ROOT, dir), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(relative);
    return entry.isFile() ? [relative] : [];
  });
}

/** A hash of the names and contents of every file the build reads (content, not times: a checkout changes times). */
function inputsHash() {
  const hash = crypto.createHash('sha256');
  const files = [...INPUT_DIRS.flatMap(filesUnder), ...INPUT_FILES].sort();
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(REPO_ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readInfo() {
  try {
    return JSON.parse(fs.readFileSync(INFO_FILE, 'utf8'));
  } catch {
    return null;
  }
}

/** Why dist/ cannot be run as it is, or null when it was built from exactly the files here now. */
function staleReason() {
  const info = readInfo();
  if (!info) return 'dist/ has not been built';
  if (!fs.existsSync(BUNDLE)) return 'the workflow bundle is missing from dist/';
  if (info.inputsHash !== inputsHash()) return 'sources changed since the last build';
  return null;
}

/** `tsc -p project --incremental`, its build info in `outDir`, where a build from scratch finds none. */
function tsc(project, outDir) {
  const bin = path.join(path.dirname(require.resolve('typescript/package.json', { paths: [REPO_ROOT] })), 'bin', 'tsc');
  const args = [bin, '-p', project, '--incremental', '--tsBuildInfoFile', path.join(outDir, '.tsbuildinfo')];
  const result = capture(process.execPath, args, { cwd: REPO_ROOT });
  if (result.status !== 0) throw new Error(`tsc -p ${project} failed:\n${`${result.stdout}\n${result.stderr}`.trim()}`);
}

const COMPILED = /(\.d)?\.js(\.map)?$|\.d\.ts(\.map)?$/;

/** Removes the files under `outDir` compiled from a source under `rootDir` that is gone. */
function removeOrphans(outDir, rootDir) {
  if (!fs.existsSync(outDir)) return;
  for (const entry of fs.readdirSync(outDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !COMPILED.test(entry.name)) continue;
    const compiled = path.join(entry.parentPath, entry.name);
    const stem = path.relative(outDir, compiled).replace(COMPILED, '');
    if (!['.ts', '.tsx'].some((ext) => fs.existsSync(path.join(rootDir, `${stem}${ext}`)))) fs.rmSync(compiled);
  }
}

/** `node dist/src/workers/bundleWorkflows.js <out>`: webpack in its own process, as the worker does from the sources. */
function bundle(out) {
  const script = path.join(DIST, 'src', 'workers', 'bundleWorkflows.js');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, out], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`bundling the workflows into ${path.relative(REPO_ROOT, out)} failed (exit ${code}):\n${stderr.trim()}`))));
  });
}

/** The build's view of the bootstrap's report: one line per step, through the same log. */
const buildReport = {
  cached: (name, detail) => log.ok(`build: ${name}: ${detail}`),
  installing: (name, detail) => log.info(`build: ${name}: ${detail}`),
  installed: (name) => log.ok(`build: ${name}: generated`),
  missing: (name, detail) => log.warn(`build: ${name}: ${detail}`),
};

/**
 * Builds dist/, recompiling what changed since the last build (all of it, the first time); build-info.json goes
 * first and is written last, so a build that failed half-way is never current.
 * The code is typed against the generated Prisma client, and npm 11 runs no install script of a dependency (so
 * `npm ci` alone leaves @prisma/client ungenerated): the client is generated first when it is missing or older than
 * the schema.
 */
async function build() {
  const startedAt = Date.now();
  ensurePrismaClient(buildReport, process.env.DATABASE_URL || GENERATE_DATABASE_URL);
  fs.rmSync(INFO_FILE, { force: true });
  const hash = inputsHash();
  log.info('build: tsc -p clients/typescript/tsconfig.build.json (the SDK, @genmedia/client)');
  removeOrphans(SDK_DIST, path.join(REPO_ROOT, 'clients', 'typescript', 'src'));
  tsc(path.join('clients', 'typescript', 'tsconfig.build.json'), SDK_DIST);
  log.info('build: tsc -p tsconfig.build.json → dist/');
  removeOrphans(DIST, REPO_ROOT);
  tsc('tsconfig.build.json', DIST);
  log.info('build: bundling the workflows → dist/workflow-bundle.js');
  await bundle(BUNDLE);
  fs.writeFileSync(INFO_FILE, `${JSON.stringify({ inputsHash: hash, builtAt: new Date().toISOString() }, null, 2)}\n`);
  log.ok(`build: dist/ (${log.seconds(Date.now() - startedAt)})`);
}

/** Builds when dist/ is missing or older than the sources; returns whether it built. */
async function ensureBuilt() {
  const reason = staleReason();
  if (reason === null) {
    log.ok('build: dist/ is current');
    return false;
  }
  log.info(`build: ${reason}`);
  await build();
  return true;
}

/**
 * The environment the built processes run with, as the image sets it (see the Dockerfile): two glibc malloc arenas
 * (threads that allocate keep what their arena once held; two give it back after a burst of jobs), and Node's
 * compile cache, so that a start after the first reads the compiled code of its modules instead of compiling them
 * again. A value already in `env` wins.
 */
function builtProcessEnv(env = process.env) {
  return {
    MALLOC_ARENA_MAX: env.MALLOC_ARENA_MAX ?? '2',
    NODE_COMPILE_CACHE: env.NODE_COMPILE_CACHE ?? path.join(cacheRoot(), 'node-compile-cache'),
  };
}

module.exports = { DIST, BUNDLE, build, ensureBuilt, staleReason, inputsHash, builtProcessEnv, removeOrphans };
