'use strict';
// The project's own entrypoints: migrations, seed, API, workers. Their files are checked before use so a missing one
// is reported by name.

const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const { REPO_ROOT } = require('./paths');
const { capture, Service } = require('./proc');

const FILES = {
  prismaCli: 'prisma/cli.js',
  seed: 'src/db/seed.ts',
  api: 'src/api/server.ts',
  workers: 'src/workers/main.ts',
};

function exists(key) {
  return fs.existsSync(path.join(REPO_ROOT, FILES[key]));
}

/** `node --import tsx <file>`: the TypeScript entrypoint in a single process (signals reach it directly). */
function tsxCommand(file, args = []) {
  const loader = pathToFileURL(require.resolve('tsx', { paths: [REPO_ROOT] })).href;
  return [process.execPath, ['--import', loader, path.join(REPO_ROOT, file), ...args]];
}

function failure(what, result) {
  return new Error(`${what} failed (exit ${result.status}):\n${`${result.stdout}\n${result.stderr}`.trim()}`);
}

function migrate(env) {
  const result = capture(process.execPath, [path.join(REPO_ROOT, FILES.prismaCli), 'migrate', 'deploy'], { cwd: REPO_ROOT, env });
  if (result.status !== 0) throw failure('node prisma/cli.js migrate deploy', result);
}

/** `vite build` of the web console into console/dist, which the API serves at /console. */
function buildConsole() {
  const vite = path.join(path.dirname(require.resolve('vite/package.json', { paths: [REPO_ROOT] })), 'bin', 'vite.js');
  const result = capture(process.execPath, [vite, 'build', '--config', path.join(REPO_ROOT, 'console', 'vite.config.ts'), '--logLevel', 'warn'], { cwd: REPO_ROOT });
  if (result.status !== 0) throw failure('vite build of the console', result);
}

/** The last line of stdout that parses as JSON. */
function lastJsonLine(stdout) {
  const lines = stdout.trim().split('\n').reverse();
  for (const line of lines) {
    try {
      return JSON.parse(line);
    } catch {
      // not JSON, keep looking
    }
  }
  return undefined;
}

/** Seeds the catalog; with `dev` also the dev account and key, returned as { accountId, apiKey }. */
function seed(env, { dev = false } = {}) {
  const result = capture(...tsxCommand(FILES.seed, dev ? ['--dev'] : []), { cwd: REPO_ROOT, env });
  if (result.status !== 0) throw failure(`tsx ${FILES.seed}${dev ? ' --dev' : ''}`, result);
  return dev ? lastJsonLine(result.stdout) : undefined;
}

function listProviders(env) {
  const result = capture(...tsxCommand(FILES.workers, ['--list-providers']), { cwd: REPO_ROOT, env });
  if (result.status !== 0) throw failure(`tsx ${FILES.workers} --list-providers`, result);
  const ids = lastJsonLine(result.stdout);
  if (!Array.isArray(ids)) throw new Error(`${FILES.workers} --list-providers printed no JSON array:\n${result.stdout}`);
  return ids;
}

function service(name, file, args, env, logDir) {
  const [command, fullArgs] = tsxCommand(file, args);
  return new Service({ name, command, args: fullArgs, env, cwd: REPO_ROOT, logFile: path.join(logDir, `${name.replace(/[^a-z0-9.-]/gi, '-')}.log`), echo: true });
}

const apiService = (env, logDir, name = 'api') => service(name, FILES.api, [], env, logDir);
const workflowWorkerService = (env, logDir) => service('worker:workflows', FILES.workers, ['--workflows'], env, logDir);
const providerWorkerService = (id, env, logDir) => service(`worker:${id}`, FILES.workers, ['--provider', id], env, logDir);

module.exports = { FILES, exists, migrate, seed, buildConsole, listProviders, apiService, workflowWorkerService, providerWorkerService, lastJsonLine };
