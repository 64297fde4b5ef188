/**
 * What the stored-bytes sums read (GET /v1/account, the usage report, the gauges), on a database with many jobs and
 * uploads of which few are still stored: PostgreSQL's own plan shows they read the stored rows through their indexes,
 * never the whole history.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Prisma } from '@prisma/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { storedOutputsByAccountSql, storedTotalSql, storedUploadsByAccountSql } from '../../../src/outputs/storing/storedUsage';
import { createScratchDatabase } from '../../support/database';
import { explainQuery } from '../../support/queryPlans';

const run = promisify(execFile);

const JOBS = 40_000;
const UPLOADS = 10_000;
const ACCOUNTS = 50;
/** One job and one upload in STORED_EVERY still has its files in storage; the others' were deleted or expired. */
const STORED_EVERY = 20;
const STORED_JOBS = JOBS / STORED_EVERY;
const STORED_UPLOADS = UPLOADS / STORED_EVERY;

let db: Awaited<ReturnType<typeof createScratchDatabase>>;
let client: pg.Client;

const explain = (sql: Prisma.Sql) => explainQuery(client, { text: sql.text, values: sql.values });

beforeAll(async () => {
  db = await createScratchDatabase();
  await run(process.execPath, [path.join(REPO_ROOT, 'prisma', 'cli.js'), 'migrate', 'deploy'], { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: db.url } });
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query(
    `INSERT INTO accounts (id, name, webhook_secret, updated_at) SELECT 'acc_stored' || n, 'stored', 's', now() FROM generate_series(1, $1::int) AS n`,
    [ACCOUNTS],
  );
  // Events are not what is looked at: the per-row trigger stays out of the bulk insert.
  await client.query('ALTER TABLE jobs DISABLE TRIGGER USER');
  await client.query(
    `INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                       estimated_completion_time, created_at, updated_at, stored_output_bytes, stored_output_count)
     SELECT 'job_stored' || n, 'acc_stored' || (n % $2::int + 1), 'm', 'm', 'v1', 'pixelforge', 'completed', '{}'::jsonb, 0, now(), now(), now(),
            CASE WHEN n % $3::int = 0 THEN 1000 + n ELSE 0 END, CASE WHEN n % $3::int = 0 THEN 2 ELSE 0 END
     FROM generate_series(1, $1::int) AS n`,
    [JOBS, ACCOUNTS, STORED_EVERY],
  );
  await client.query(
    `INSERT INTO uploads (id, account_id, filename, content_type, object_key, max_size_bytes, status, size_bytes, expires_at)
     SELECT 'file_stored' || n, 'acc_stored' || (n % $2::int + 1), 'in.png', 'image/png', 'k' || n, 10000000,
            (CASE WHEN n % $3::int = 0 THEN 'uploaded' ELSE 'expired' END)::upload_status, 500 + n, now()
     FROM generate_series(1, $1::int) AS n`,
    [UPLOADS, ACCOUNTS, STORED_EVERY],
  );
  // As autovacuum leaves a table that has settled: statistics, and the visibility map index-only scans rely on.
  await client.query('VACUUM ANALYZE jobs');
  await client.query('VACUUM ANALYZE uploads');
}, 120_000);

afterAll(async () => {
  await client?.end();
  await db?.drop();
});

describe('the sums of what is stored', () => {
  it('all accounts together read only the stored jobs and uploads, through their indexes', async () => {
    const reading = await explain(storedTotalSql());
    expect(reading.scans).not.toContain('Seq Scan');
    expect(reading.indexes).toEqual(expect.arrayContaining(['jobs_stored_outputs_idx', 'uploads_stored_idx']));
    expect(reading.rowsRead).toBeLessThanOrEqual(STORED_JOBS + STORED_UPLOADS);
    const { rows } = await client.query(storedTotalSql().text, storedTotalSql().values);
    expect(rows[0]).toMatchObject({ output_objects: String(2 * STORED_JOBS), upload_objects: String(STORED_UPLOADS) });
  });

  it('every account apart (the usage report grouped by account) reads the same rows', async () => {
    for (const sql of [storedOutputsByAccountSql(), storedUploadsByAccountSql()]) {
      const reading = await explain(sql);
      expect(reading.scans).not.toContain('Seq Scan');
      expect(reading.rowsRead).toBeLessThanOrEqual(STORED_JOBS + STORED_UPLOADS);
    }
  });

  it("one account (GET /v1/account) reads no more than what is stored, however long the account's history", async () => {
    // acc_stored11 has some of the stored jobs and uploads; every account has JOBS / ACCOUNTS jobs in all.
    for (const sql of [storedOutputsByAccountSql(['acc_stored11']), storedUploadsByAccountSql(['acc_stored11'])]) {
      const reading = await explain(sql);
      expect(reading.scans).not.toContain('Seq Scan');
      expect(reading.indexes.some((name) => name === 'jobs_stored_outputs_idx' || name === 'uploads_stored_idx')).toBe(true);
      expect(reading.rowsRead).toBeGreaterThan(0);
      expect(reading.rowsRead).toBeLessThanOrEqual(STORED_JOBS + STORED_UPLOADS);
    }
  });
});
