'use strict';
// The ports of what `npm run dev` (and `npm run cluster`) start on this machine: PostgreSQL, the Temporal dev server
// and its UI, MinIO and its console, and the web console's hot reload. They are the dev stack's, not the
// application's: the API and the workers are handed the addresses made of them (DATABASE_URL, TEMPORAL_ADDRESS,
// TEMPORAL_UI_URL, MINIO_ENDPOINT), which is all they read, and the dev stack's API its hot-reload port on its command
// line (scripts/devApi.js). Each can be moved with its variable.

const { SetupError } = require('./log');

/** Each port's variable and its default; src/config.ts's default addresses are made of the same defaults. */
const DEV_PORTS = {
  postgres: { variable: 'PG_PORT', default: 54329 },
  temporal: { variable: 'TEMPORAL_PORT', default: 7233 },
  temporalUi: { variable: 'TEMPORAL_UI_PORT', default: 8233 },
  minio: { variable: 'MINIO_PORT', default: 9000 },
  minioConsole: { variable: 'MINIO_CONSOLE_PORT', default: 9001 },
  consoleHmr: { variable: 'CONSOLE_HMR_PORT', default: 24678 },
};

/** The dev stack's ports from `env`; a value that is no port stops the start, naming its variable. */
function devPorts(env = process.env) {
  const ports = {};
  for (const [name, { variable, default: fallback }] of Object.entries(DEV_PORTS)) {
    const raw = env[variable];
    const port = raw === undefined || raw === '' ? fallback : Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new SetupError(`${variable} must be a port (1 to 65535), got "${raw}"`, `unset ${variable} or give it a free port`);
    }
    ports[name] = port;
  }
  return ports;
}

/**
 * `env` with the addresses of the services the dev stack starts, made of its ports, where `env` does not give its
 * own (a service given by address is used as it is, and not started).
 */
function withDevAddresses(env, ports) {
  return {
    ...env,
    DATABASE_URL: env.DATABASE_URL || `postgresql://genmedia:genmedia@127.0.0.1:${ports.postgres}/genmedia`,
    TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS || `127.0.0.1:${ports.temporal}`,
    TEMPORAL_UI_URL: env.TEMPORAL_UI_URL || `http://127.0.0.1:${ports.temporalUi}`,
    MINIO_ENDPOINT: env.MINIO_ENDPOINT || `http://127.0.0.1:${ports.minio}`,
  };
}

module.exports = { DEV_PORTS, devPorts, withDevAddresses };
