'use strict';
// Starts PostgreSQL, Temporal and MinIO side by side and waits until each answers. Used by dev and test alike.

const path = require('node:path');
const log = require('./log');
const postgres = require('./postgres');
const temporal = require('./temporal');
const minio = require('./minio');

/**
 * @param {import('./supervisor').Supervisor} supervisor
 * @param {object} plan
 * @param {string} plan.logDir
 * @param {{ binDir: string, dataDir: string, port: number, fast?: boolean } | null} plan.postgres  null = external
 * @param {{ binary: string, port: number, uiPort?: number, dbFile?: string, namespace: string } | null} plan.temporal
 * @param {{ binary: string, dataDir: string, port: number, consolePort: number, user: string, password: string } | null} plan.minio
 */
async function startInfrastructure(supervisor, plan) {
  const waits = [];

  if (plan.postgres) {
    const pg = plan.postgres;
    if (postgres.initCluster(pg.binDir, pg.dataDir, { fast: pg.fast })) log.info(`postgres: created cluster in ${pg.dataDir}`);
    const service = supervisor.start(postgres.createService({ ...pg, logFile: path.join(plan.logDir, 'postgres.log') }));
    log.info(`postgres: starting on 127.0.0.1:${pg.port}`);
    waits.push(
      (async () => {
        await postgres.waitReady(pg.binDir, pg.port, service);
        if (await postgres.ensureDatabase(pg.binDir, pg.port)) log.info('postgres: created database genmedia');
        log.ok(`postgres ready on 127.0.0.1:${pg.port}`);
      })(),
    );
  }

  if (plan.temporal) {
    const t = plan.temporal;
    const address = `127.0.0.1:${t.port}`;
    const service = supervisor.start(temporal.createService({ ...t, logFile: path.join(plan.logDir, 'temporal.log') }));
    log.info(`temporal: starting on ${address}${t.dbFile ? ` (state in ${t.dbFile})` : ' (in memory)'}`);
    waits.push(
      (async () => {
        await temporal.waitReady({ binary: t.binary, address, uiPort: t.uiPort, service });
        const created = temporal.ensureSearchAttributes({ binary: t.binary, address, namespace: t.namespace });
        if (created.length > 0) log.info(`temporal: created search attributes ${created.join(', ')}`);
        const retention = temporal.ensureNamespaceRetention({ binary: t.binary, address, namespace: t.namespace });
        log.ok(`temporal ready on ${address}, search attributes ${temporal.SEARCH_ATTRIBUTES.join(', ')}, namespace retention ${retention}`);
      })(),
    );
  }

  if (plan.minio) {
    const m = plan.minio;
    const service = supervisor.start(minio.createService({ ...m, logFile: path.join(plan.logDir, 'minio.log') }));
    log.info(`minio: starting on 127.0.0.1:${m.port}`);
    waits.push(
      (async () => {
        await minio.waitReady({ port: m.port, service });
        log.ok(`minio ready on 127.0.0.1:${m.port}`);
      })(),
    );
  }

  const results = await Promise.allSettled(waits);
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length > 0) throw new Error(failed.map((r) => r.reason.message).join('\n'));
}

module.exports = { startInfrastructure };
