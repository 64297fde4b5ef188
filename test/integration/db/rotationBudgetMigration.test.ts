/**
 * The migration that gives a rotation chain one budget, over keys rotated before it: each key rotated into joins the
 * budget of the first key of its chain, and that budget starts at what the chain's jobs spent in the current UTC day
 * and month (charges less refunds), whatever the separate copies had counted.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createScratchDatabase } from '../../support/database';

const MIGRATIONS = path.join(REPO_ROOT, 'prisma', 'migrations');
const MIGRATION = '20261127000000_rotation_budget_audit_request_ids';

const migrationSql = (name: string) => fs.readFileSync(path.join(MIGRATIONS, name, 'migration.sql'), 'utf8');

describe('the rotation budget migration', () => {
  let db: Awaited<ReturnType<typeof createScratchDatabase>>;
  let client: pg.Client;

  beforeAll(async () => {
    db = await createScratchDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const earlier = fs
      .readdirSync(MIGRATIONS)
      .filter((name) => fs.statSync(path.join(MIGRATIONS, name)).isDirectory() && name < MIGRATION)
      .sort();
    for (const name of earlier) await client.query(migrationSql(name));
  });

  afterAll(async () => {
    await client?.end();
    await db?.drop();
  });

  it('puts each rotation chain on the budget of its first key, counted again from its jobs', async () => {
    await client.query(`INSERT INTO accounts (id, name, webhook_secret, updated_at) VALUES ('acc', 'chain', 'whsec_x', now())`);
    // A → B → C as rotations left them: B and C started from copies of their predecessor's counters. D was never rotated.
    const key = (id: string, replacedBy: string | null, spent: number) =>
      client.query(
        `INSERT INTO api_keys (id, account_id, prefix, hash, scopes, replaced_by, spend_day, spent_day_micro_cents, spend_month, spent_month_micro_cents)
         VALUES ($1, 'acc', $1, $1, '{submit_job}', $2, (now() AT TIME ZONE 'UTC')::date, $3, date_trunc('month', now() AT TIME ZONE 'UTC')::date, $3)`,
        [id, replacedBy, spent],
      );
    await key('key_a', 'key_b', 90_000);
    await key('key_b', 'key_c', 75_000);
    await key('key_c', null, 75_000);
    await key('key_d', null, 12_345);
    const job = (id: string, keyId: string, cost: number, refunded: number, age: string) =>
      client.query(
        `INSERT INTO jobs (id, account_id, api_key_id, model_slug, model_id, version_id, provider_id, input, cost_micro_cents,
                           refunded_micro_cents, estimated_completion_time, created_at, updated_at)
         VALUES ($1, 'acc', $2, 'm/m/text-to-image', 'm', 'v1', 'p', '{}', $3, $4, now(), now() - $5::interval, now())`,
        [id, keyId, cost, refunded, age],
      );
    await job('job_1', 'key_a', 45_000, 0, '0 seconds');
    await job('job_2', 'key_a', 45_000, 45_000, '0 seconds');
    await job('job_3', 'key_b', 30_000, 0, '0 seconds');
    await job('job_4', 'key_c', 45_000, 0, '40 days');
    await job('job_5', 'key_d', 1, 0, '0 seconds');

    await client.query(migrationSql(MIGRATION));

    const { rows } = await client.query<{ id: string; budget_key_id: string | null; spent_day: string; spent_month: string; spend_day: Date | null }>(
      `SELECT id, budget_key_id, spent_day_micro_cents AS spent_day, spent_month_micro_cents AS spent_month, spend_day FROM api_keys ORDER BY id`,
    );
    const byId = Object.fromEntries(rows.map((row) => [row.id, row]));
    expect(Object.fromEntries(rows.map((row) => [row.id, row.budget_key_id]))).toEqual({ key_a: null, key_b: 'key_a', key_c: 'key_a', key_d: null });
    expect(byId.key_a).toMatchObject({ spent_day: '75000', spent_month: '75000' });
    expect(byId.key_b).toMatchObject({ spent_day: '0', spent_month: '0', spend_day: null });
    expect(byId.key_c).toMatchObject({ spent_day: '0', spent_month: '0', spend_day: null });
    // A key outside any chain keeps its counters as they were.
    expect(byId.key_d).toMatchObject({ spent_day: '12345', spent_month: '12345' });
  });
});
