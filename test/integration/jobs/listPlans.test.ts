import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { jobPageSql, type JobKeyset, type ListQuery } from '../../../src/jobs/list';
import { createScratchDatabase } from '../../support/database';
import { explainQuery } from '../../support/queryPlans';

const run = promisify(execFile);

const ACCOUNT = 'acc_listplans';
const LIMIT = 20;
const JOBS = 40_000;
const MODELS = ['pixelforge/forge-pro/text-to-image', 'pixelforge/forge-lite/text-to-image'];
/** Its jobs all completed, so with `status=failed` it matches nothing, though each filter alone matches plenty. */
const COMPLETED_MODEL = 'pixelforge/forge-max/text-to-image';

const COMBINATIONS: Record<string, Pick<ListQuery, 'status' | 'model'>> = {
  'no filter': {},
  status: { status: 'failed' },
  model: { model: MODELS[1] },
  'status and model': { status: 'failed', model: MODELS[1] },
  'status, none match': { status: 'cancelled' },
  'model, none match': { model: 'pixelforge/forge-none/text-to-image' },
  'status and model, none match': { status: 'failed', model: COMPLETED_MODEL },
};

describe('GET /v1/jobs on many jobs', () => {
  let db: Awaited<ReturnType<typeof createScratchDatabase>>;
  let client: pg.Client;
  let middle: JobKeyset;

  beforeAll(async () => {
    db = await createScratchDatabase();
    await run(process.execPath, [path.join(REPO_ROOT, 'prisma', 'cli.js'), 'migrate', 'deploy'], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: db.url },
    });
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(`INSERT INTO accounts (id, name, webhook_secret, updated_at) VALUES ($1, 'plans', 's', now()), ('acc_other', 'other', 's', now())`, [
      ACCOUNT,
    ]);
    // Events are not what is looked at: the per-row trigger stays out of the bulk insert.
    await client.query('ALTER TABLE jobs DISABLE TRIGGER USER');
    // The test cluster commits asynchronously (synchronous_commit off): until the WAL writer flushes an insert's commit,
    // its rows' hint bits cannot be set, and VACUUM marks no page all-visible without them. This insert is flushed
    // at its commit, as on a server with the default setting.
    await client.query('SET synchronous_commit TO on');
    await client.query(
      `INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                         estimated_completion_time, created_at, updated_at)
       SELECT 'job_plans' || n, CASE WHEN n % 5 = 0 THEN 'acc_other' ELSE $1 END, model, model, 'v1', 'pixelforge', status::job_status, '{}'::jsonb, 0,
              ts, ts, ts
       FROM generate_series(1, $2::int) AS n,
            LATERAL (SELECT timestamptz '2026-01-01' - n * interval '1 second' AS ts,
                            CASE WHEN n % 10 = 1 THEN $5 WHEN n % 2 = 0 THEN $3 ELSE $4 END AS model) m,
            LATERAL (SELECT CASE WHEN m.model = $5 OR (n / 2) % 2 = 1 THEN 'completed' ELSE 'failed' END AS status) s`,
      [ACCOUNT, JOBS, MODELS[0], MODELS[1], COMPLETED_MODEL],
    );
    // What autovacuum keeps up to date: the statistics, and the visibility map of the rows every transaction sees.
    await client.query('VACUUM (ANALYZE) jobs');
    const { rows } = await client.query<JobKeyset>(
      `SELECT created_at AS "createdAt", seq FROM jobs WHERE account_id = $1 ORDER BY created_at DESC, seq DESC OFFSET $2 LIMIT 1`,
      [ACCOUNT, JOBS / 4],
    );
    middle = rows[0]!;
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  for (const [name, filters] of Object.entries(COMBINATIONS)) {
    for (const page of ['first page', 'page after a cursor'] as const) {
      it(`reads at most a page and one row, ${name}, ${page}`, async () => {
        const after = page === 'first page' ? null : middle;
        const reading = await explainQuery(client, jobPageSql(ACCOUNT, filters, after, LIMIT + 1));
        expect(reading.scans).not.toContain('Seq Scan');
        expect(reading.rowsRead).toBeLessThanOrEqual(LIMIT + 1);
        if (name.endsWith('none match')) expect(reading.rowsRead).toBe(0);
      });
    }

    // A deep page's table pages are in no cache (a walk through the listing reads each once), where the first page's
    // always are: its index alone must answer it, not a table page per job.
    it(`reads a page after a cursor from its index alone, ${name}`, async () => {
      const reading = await explainQuery(client, jobPageSql(ACCOUNT, filters, middle, LIMIT + 1));
      expect(reading.scans).toEqual(['Index Only Scan']);
      expect(reading.heapFetches).toBe(0);
    });
  }
});
