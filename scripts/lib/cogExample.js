'use strict';
// `GENMEDIA_COG=1 npm run dev`: the example Cog predictor (examples/cog) on the real Cog server from the cached
// virtual environment, registered as a self-hosted model with `genmedia admin models import-cog` once the API is up;
// the stack's Cog worker (--cog-providers) then serves its provider (docs/self-hosted.md).

const path = require('node:path');
const { REPO_ROOT } = require('./paths');
const { capture, Service } = require('./proc');
const { waitForHttp } = require('./ports');

const EXAMPLE_SLUG = 'selfhosted/painter/text-to-image';
/** What one picture costs a client: $0.02. */
const EXAMPLE_PRICE_MICRO_CENTS = 20_000;

function wanted(env = process.env) {
  return env.GENMEDIA_COG === '1';
}

function examplePort(env = process.env) {
  return Number(env.COG_EXAMPLE_PORT || 5055);
}

function cogExampleService(python, env, logDir) {
  const port = examplePort(env);
  return new Service({
    name: 'cog-example',
    command: python,
    args: ['-m', 'cog.server.http'],
    cwd: path.join(REPO_ROOT, 'examples', 'cog'),
    env: {
      ...env,
      // The server starts its worker with the first python3 on PATH: the cached environment's.
      PATH: `${path.dirname(python)}${path.delimiter}${env.PATH || ''}`,
      COG_PREDICT_TYPE_STUB: 'predict.py:Predictor',
      PORT: String(port),
      COG_MAX_CONCURRENCY: env.COG_EXAMPLE_SLOTS || '2',
      COG_EXAMPLE_STEP_SECONDS: env.COG_EXAMPLE_STEP_SECONDS || '0.25',
    },
    logFile: path.join(logDir, 'cog-example.log'),
  });
}

/**
 * Waits for the server's schema (served once its setup has finished), then registers its model through the operator
 * API of `env.GENMEDIA_BASE_URL` with the dev admin key; idempotent.
 */
async function registerExample(env) {
  const url = `http://127.0.0.1:${examplePort(env)}`;
  await waitForHttp(`${url}/openapi.json`, { timeoutMs: 60_000, intervalMs: 300 });
  const slots = env.COG_EXAMPLE_SLOTS || '2';
  const args = ['admin', 'models', 'import-cog', '--url', url, '--slug', EXAMPLE_SLUG, '--price', String(EXAMPLE_PRICE_MICRO_CENTS)];
  args.push('--slots', slots, '--processing-seconds', '3', '--name', 'Painter (self-hosted example)', '--json');
  const result = capture(process.execPath, [path.join(REPO_ROOT, 'bin', 'genmedia.js'), ...args], { cwd: REPO_ROOT, env });
  if (result.status !== 0) throw new Error(`genmedia ${args.join(' ')} failed:\n${`${result.stdout}\n${result.stderr}`.trim()}`);
  return { url, slug: EXAMPLE_SLUG };
}

module.exports = { wanted, examplePort, cogExampleService, registerExample, EXAMPLE_SLUG };
