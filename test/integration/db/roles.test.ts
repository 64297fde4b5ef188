/**
 * The database roles of the compose deployment (deploy/postgres/roles.sql), applied with psql to a fresh database of
 * the test PostgreSQL under names of this run: the owner applies the Prisma migrations, the application's role does
 * what the API and the workers do (the catalog seed, a job admitted, claimed and completed, its event notified) and
 * cannot change the schema, and Temporal's role owns its two databases and reaches nothing else.
 */
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { createJobStore } from '../../../src/jobs/store';
import { createTestAccount } from '../../support/accounts';
import { createScratchDatabase } from '../../support/database';
import { builtArgs } from '../../support/build';

const run = promisify(execFile);
const ROLES_SQL = path.join(REPO_ROOT, 'deploy', 'postgres', 'roles.sql');
const INIT_SCRIPT = path.join(REPO_ROOT, 'deploy', 'postgres', 'init-roles.sh');

const suffix = randomBytes(4).toString('hex');
const names = {
  owner_role: `genmedia_owner_${suffix}`,
  app_role: `genmedia_app_${suffix}`,
  temporal_role: `temporal_${suffix}`,
  temporal_database: `temporal_${suffix}`,
  temporal_visibility_database: `temporal_visibility_${suffix}`,
};
const passwords = {
  POSTGRES_OWNER_PASSWORD: randomBytes(12).toString('hex'),
  POSTGRES_APP_PASSWORD: randomBytes(12).toString('hex'),
  POSTGRES_TEMPORAL_PASSWORD: randomBytes(12).toString('hex'),
};

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let urls: { owner: string; app: string; temporal: string; appToTemporal: string; temporalToApp: string };
let app: PrismaClient;

function urlFor(base: string, user: string, password: string, database?: string): string {
  const url = new URL(base);
  url.username = user;
  url.password = password;
  if (database) url.pathname = `/${database}`;
  return url.toString();
}

async function asRole<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The error PostgreSQL answers `sql` with, as `url`'s role; fails when the statement succeeds. */
function refusal(url: string, sql: string): Promise<string> {
  return asRole(url, (client) =>
    client.query(sql).then(
      () => `succeeded: ${sql}`,
      (err: Error) => err.message,
    ),
  );
}

beforeAll(async () => {
  scratch = await createScratchDatabase();
  const database = new URL(scratch.url).pathname.slice(1);
  const psql = spawnSync(
    'psql',
    ['--no-psqlrc', '--dbname', scratch.url, '-v', `app_database=${database}`, ...Object.entries(names).flatMap(([name, value]) => ['-v', `${name}=${value}`]), '-f', ROLES_SQL],
    { env: { ...process.env, ...passwords }, encoding: 'utf8' },
  );
  expect(psql.status, `${psql.stdout}\n${psql.stderr}`).toBe(0);
  urls = {
    owner: urlFor(scratch.url, names.owner_role, passwords.POSTGRES_OWNER_PASSWORD),
    app: urlFor(scratch.url, names.app_role, passwords.POSTGRES_APP_PASSWORD),
    temporal: urlFor(scratch.url, names.temporal_role, passwords.POSTGRES_TEMPORAL_PASSWORD, names.temporal_database),
    appToTemporal: urlFor(scratch.url, names.app_role, passwords.POSTGRES_APP_PASSWORD, names.temporal_database),
    temporalToApp: urlFor(scratch.url, names.temporal_role, passwords.POSTGRES_TEMPORAL_PASSWORD),
  };
  // The schema is the owner's: the committed migrations, as the compose migrate service applies them.
  await run(process.execPath, [path.join(REPO_ROOT, 'prisma', 'cli.js'), 'migrate', 'deploy'], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: urls.owner },
  });
  app = createPrisma(urls.app, { poolSize: 2 });
}, 180_000);

afterAll(async () => {
  await app?.$disconnect();
  await scratch?.drop();
  if (!process.env.DATABASE_URL) return;
  await asRole(process.env.DATABASE_URL, async (admin) => {
    for (const database of [names.temporal_database, names.temporal_visibility_database]) await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    for (const role of [names.owner_role, names.app_role, names.temporal_role]) await admin.query(`DROP ROLE IF EXISTS "${role}"`);
  });
});

describe('the compose database roles', () => {
  it('are neither superusers nor allowed to create roles or databases', async () => {
    const { rows } = await asRole(process.env.DATABASE_URL!, (admin) =>
      admin.query<{ rolname: string; rolsuper: boolean; rolcreaterole: boolean; rolcreatedb: boolean }>(
        'SELECT rolname, rolsuper, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = ANY($1) ORDER BY rolname',
        [[names.owner_role, names.app_role, names.temporal_role]],
      ),
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row, row.rolname).toMatchObject({ rolsuper: false, rolcreaterole: false, rolcreatedb: false });
  });

  it('let the owner apply the migrations: every table is the owner’s', async () => {
    const { rows } = await asRole(urls.owner, (owner) =>
      owner.query<{ tableowner: string }>(`SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'`),
    );
    expect(rows.map((r) => r.tableowner)).toEqual([names.owner_role]);
  });

  it('let the application seed the catalog as the migrate service does', async () => {
    const seed = await run(process.execPath, builtArgs(path.join('src', 'db', 'seed.ts')), {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: urls.app },
    });
    expect(seed.stderr).toMatch(/catalog seeded: \d+ models/);
    expect(await app.model.count()).toBeGreaterThan(0);
  }, 120_000);

  it('let the application admit, claim and complete a job, and hear its events', async () => {
    const account = await createTestAccount(app, { creditsMicroCents: 1_000_000n });
    const store = createJobStore(app);
    const jobId = `job_roles_${suffix}`;
    const events: string[] = [];
    await asRole(urls.app, async (listener) => {
      listener.on('notification', (n) => events.push(n.payload ?? ''));
      await listener.query('LISTEN job_events');
      const admitted = await store.admit({
        jobId,
        accountId: account.accountId,
        apiKeyId: null,
        requestId: null,
        modelSlug: 'pixelforge/forge-pro/text-to-image',
        modelId: 'forge-pro',
        versionId: 'v1',
        routes: [{ providerId: 'pixelforge', taskQueue: 'provider.pixelforge', expectedProcessingSeconds: 30 }],
        capability: 'text-to-image',
        input: { prompt: 'a lighthouse' },
        webhookUrl: null,
        costMicroCents: 45_000,
        admitBefore: new Date(Date.now() + 60_000).toISOString(),
      });
      expect(admitted).toMatchObject({ jobId, status: 'pending', costMicroCents: 45_000 });
      expect(await store.claim(jobId, 30)).toMatchObject({ claimed: true });
      await store.complete(jobId, []);
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    const job = await app.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.status).toBe('completed');
    expect((await app.jobEvent.findMany({ where: { jobId }, orderBy: { sequence: 'asc' } })).map((e) => e.type)).toEqual([
      'job.created',
      'job.processing',
      'job.completed',
    ]);
    expect(events).toContain(account.accountId);
    expect((await app.account.findUniqueOrThrow({ where: { id: account.accountId } })).balanceMicroCents).toBe(955_000n);
  });

  it('keep the application from creating, altering, dropping or emptying tables', async () => {
    expect(await refusal(urls.app, 'DROP TABLE jobs')).toMatch(/must be owner/);
    expect(await refusal(urls.app, 'ALTER TABLE jobs ADD COLUMN nickname text')).toMatch(/must be owner/);
    expect(await refusal(urls.app, 'CREATE TABLE extra (id int)')).toMatch(/permission denied for schema public/);
    expect(await refusal(urls.app, 'TRUNCATE ledger_entries')).toMatch(/permission denied/);
    expect(await refusal(urls.app, 'CREATE SCHEMA extra')).toMatch(/permission denied for database/);
    expect(await refusal(urls.app, 'DROP TRIGGER accounts_balance_non_negative ON accounts')).toMatch(/must be owner/);
    expect(await refusal(urls.app, 'CREATE INDEX jobs_extra ON jobs (model_slug)')).toMatch(/must be owner/);
  });

  it('grant the application the tables and sequences of a later migration', async () => {
    await asRole(urls.owner, (owner) => owner.query('CREATE TABLE later_migration (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL)'));
    const inserted = await asRole(urls.app, (client) => client.query<{ id: string }>(`INSERT INTO later_migration (note) VALUES ('x') RETURNING id`));
    expect(inserted.rows).toHaveLength(1);
    expect(await refusal(urls.app, 'DROP TABLE later_migration')).toMatch(/must be owner/);
  });

  it("give Temporal its own databases, which the application cannot enter, and keep Temporal out of the application's", async () => {
    await asRole(urls.temporal, (temporal) => temporal.query('CREATE TABLE schema_version (version TEXT)'));
    await expect(asRole(urls.appToTemporal, (client) => client.query('SELECT 1'))).rejects.toThrow(/permission denied for database/);
    await expect(asRole(urls.temporalToApp, (client) => client.query('SELECT 1'))).rejects.toThrow(/permission denied for database/);
  });

  it('are made by the compose init script with every variable roles.sql reads', () => {
    const sql = fs.readFileSync(ROLES_SQL, 'utf8');
    const script = fs.readFileSync(INIT_SCRIPT, 'utf8');
    const variables = new Set([...sql.matchAll(/:["']?([a-z_]+)["']?/g)].map((m) => m[1]!).filter((name) => !name.endsWith('_password')));
    const passed = new Set([...script.matchAll(/-v ([a-z_]+)=/g)].map((m) => m[1]!));
    expect([...variables].sort()).toEqual([...passed].sort());
    for (const env of [...sql.matchAll(/\\getenv \w+ (\w+)/g)].map((m) => m[1]!)) expect(Object.keys(passwords)).toContain(env);
    expect(fs.statSync(INIT_SCRIPT).mode & 0o111).not.toBe(0);
  });
});
