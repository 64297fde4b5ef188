'use strict';
// The project's own entrypoints: migrations, seed, API, workers. Their files are checked before use so a missing one
// is reported by name. Each runs from its TypeScript sources through tsx (`npm run dev`, `npm test`), or with
// `{ built: true }` as the plain JavaScript of `npm run build` in dist/ (`npm run cluster`).

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

/** dist/src/api/server.js for src/api/server.ts: where tsconfig.build.json compiles each source. */
function builtFile(file) {
  return path.join('dist', file.replace(/\.ts$/, '.js'));
}

/**
 * The V8 options the workflow worker runs with, built or through tsx (and in docker-compose.yml, which a test holds to
 * this list). Node 24's V8 sizes each isolate's young generation from the machine's memory: semi-spaces of 64 MB on
 * a large host (Node 20 stopped at 16), so the worker's two isolates, the main thread and the Temporal workflow
 * thread, grow 128 MB of new space each during a burst of admissions, and the old generation may grow up to four
 * times its live size before a full GC. V8 13 also keeps the pages a GC frees in a pool until a memory-reducing GC,
 * seconds after the burst, so the RSS stays at the burst's peak until then. Semi-spaces of 8 MB and a fixed heap
 * growth of 1.5x keep that peak near the live heaps (about 60 MB in all with 1,000 jobs open) for about the GC time
 * Node 20 spent (docs/scaling.md).
 */
const WORKFLOW_WORKER_NODE_OPTIONS = ['--max-semi-space-size=8', '--heap-growing-percent=50'];

/**
 * The V8 options the API runs with, however it is started: `npm run dev`, `npm run cluster`, `npm run api`, the image's
 * command and docker-compose.yml (test/unit/scripts/apiNodeOptions.test.ts holds each of them to this list). The API
 * is one isolate that takes bursts of submits and event streams: with Node 24's 64 MB semi-spaces and its heap growth
 * on a large host it held 313 MB with 1,000 jobs in flight and 200 streams, against 191–200 MB on Node 20; the
 * workflow worker's options bring it back under 250 MB at the same submit throughput and latency (docs/scaling.md).
 */
const API_NODE_OPTIONS = WORKFLOW_WORKER_NODE_OPTIONS;

/** `node --import tsx <file>`: the TypeScript entrypoint in a single process (signals reach it directly). */
function tsxCommand(file, args = [], nodeOptions = []) {
  const loader = pathToFileURL(require.resolve('tsx', { paths: [REPO_ROOT] })).href;
  return [process.execPath, [...nodeOptions, '--import', loader, path.join(REPO_ROOT, file), ...args]];
}

/** The entrypoint `key` with its arguments: `node dist/….js` when built, else through tsx; `nodeOptions` go to node. */
function nodeCommand(key, args, { built = false, nodeOptions = [] } = {}) {
  return built ? [process.execPath, [...nodeOptions, path.join(REPO_ROOT, builtFile(FILES[key])), ...args]] : tsxCommand(FILES[key], args, nodeOptions);
}

function failure(what, result) {
  return new Error(`${what} failed (exit ${result.status}):\n${`${result.stdout}\n${result.stderr}`.trim()}`);
}

function migrate(env) {
  const result = capture(process.execPath, [path.join(REPO_ROOT, FILES.prismaCli), 'migrate', 'deploy'], { cwd: REPO_ROOT, env: withoutSigningKey(env) });
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
function seed(env, { dev = false, built = false } = {}) {
  const result = capture(...nodeCommand('seed', dev ? ['--dev'] : [], { built }), { cwd: REPO_ROOT, env: withoutSigningKey(env) });
  if (result.status !== 0) throw failure(`${built ? builtFile(FILES.seed) : FILES.seed}${dev ? ' --dev' : ''}`, result);
  return dev ? lastJsonLine(result.stdout) : undefined;
}

function listProviders(env, { built = false } = {}) {
  const result = capture(...nodeCommand('workers', ['--list-providers'], { built }), { cwd: REPO_ROOT, env: withoutSigningKey(env) });
  if (result.status !== 0) throw failure(`${FILES.workers} --list-providers`, result);
  const ids = lastJsonLine(result.stdout);
  if (!Array.isArray(ids)) throw new Error(`${FILES.workers} --list-providers printed no JSON array:\n${result.stdout}`);
  return ids;
}

/** A supervised process running `[command, args]`, logging to `<logDir>/<name>.log`. */
function commandService(name, [command, args], env, logDir) {
  return new Service({ name, command, args, env, cwd: REPO_ROOT, logFile: path.join(logDir, `${name.replace(/[^a-z0-9.-]/gi, '-')}.log`), echo: true });
}

function service(name, key, args, env, logDir, { built = false, nodeOptions = [] } = {}) {
  return commandService(name, nodeCommand(key, args, { built, nodeOptions }), env, logDir);
}

/** The variables of the signing key (SIGNING_KEY_SETTINGS in src/config.ts): only the provider workers, which sign, get them. */
const SIGNING_KEY_VARIABLES = ['PROVENANCE_PRIVATE_KEY'];

/** `env` without the signing key, for a process that signs nothing. */
function withoutSigningKey(env) {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SIGNING_KEY_VARIABLES.includes(name)));
}

const apiService = (env, logDir, name = 'api', options = {}) =>
  service(name, 'api', [], withoutSigningKey(env), logDir, { ...options, nodeOptions: API_NODE_OPTIONS });

/** The entry that starts the API with the dev stack's console (scripts/devApi.js), from the sources or built. */
const DEV_API = 'scripts/devApi.js';

/**
 * The API of `npm run dev` and `npm run cluster`: the API's own start through scripts/devApi.js, which gives it the
 * console from its sources with hot reload on `hmrPort` (when given) and the dev key saved in `devKeyFile` (when
 * given) for its sign-in form. `built` runs dist/, as the cluster does.
 */
function devApiService(env, logDir, name = 'api', { built = false, hmrPort, devKeyFile } = {}) {
  const args = [
    ...(built ? ['--built'] : []),
    ...(hmrPort !== undefined ? ['--console-sources', String(hmrPort)] : []),
    ...(devKeyFile !== undefined ? ['--dev-key-file', devKeyFile] : []),
  ];
  const command = built ? [process.execPath, [...API_NODE_OPTIONS, path.join(REPO_ROOT, DEV_API), ...args]] : tsxCommand(DEV_API, args, API_NODE_OPTIONS);
  return commandService(name, command, withoutSigningKey(env), logDir);
}
const workflowWorkerService = (env, logDir, options = {}) =>
  service('worker:workflows', 'workers', ['--workflows'], withoutSigningKey(env), logDir, { ...options, nodeOptions: WORKFLOW_WORKER_NODE_OPTIONS });
const providerWorkerService = (id, env, logDir, options = {}) => service(`worker:${id}`, 'workers', ['--provider', id], env, logDir, options);
/** Serves every self-hosted Cog provider, those an operator imports while the stack runs included. */
const cogWorkerService = (env, logDir, options = {}) => service('worker:cog', 'workers', ['--cog-providers'], env, logDir, options);

module.exports = { FILES, WORKFLOW_WORKER_NODE_OPTIONS, API_NODE_OPTIONS, SIGNING_KEY_VARIABLES, withoutSigningKey, exists, builtFile, migrate, seed, buildConsole, listProviders, apiService, devApiService, workflowWorkerService, providerWorkerService, cogWorkerService, lastJsonLine };
