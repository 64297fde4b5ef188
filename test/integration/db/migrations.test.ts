import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { createScratchDatabase } from '../../support/database';

const run = promisify(execFile);
const CLI = path.join(REPO_ROOT, 'prisma', 'cli.js');

function prismaCli(args: string[], databaseUrl: string) {
  return run(process.execPath, [CLI, ...args], { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl } });
}

/** Table names declared with @@map in schema.prisma. */
function mappedTables(): string[] {
  const schema = fs.readFileSync(path.join(REPO_ROOT, 'prisma', 'schema.prisma'), 'utf8');
  const models = [...schema.matchAll(/^model \w+ \{[\s\S]*?^\}/gm)].map((m) => m[0]);
  expect(models.length).toBeGreaterThan(10);
  return models.map((block) => /@@map\("([a-z_]+)"\)/.exec(block)![1]!).sort();
}

describe('migrations', () => {
  let db: Awaited<ReturnType<typeof createScratchDatabase>>;
  beforeAll(async () => {
    db = await createScratchDatabase();
  });
  afterAll(() => db?.drop());

  it('apply to an empty database and create every table of schema.prisma', async () => {
    const started = Date.now();
    await prismaCli(['migrate', 'deploy'], db.url);
    expect(Date.now() - started).toBeLessThan(20_000); // the CLI must not linger after its work
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`,
      );
      expect(rows.map((r) => r.table_name).sort()).toEqual(mappedTables());
    } finally {
      await client.end();
    }
  });

  it('match schema.prisma: a second diff reports no changes', async () => {
    const { stdout } = await prismaCli(['check'], db.url);
    expect(stdout).toContain('migrations match schema.prisma');
  });

  it('detect a schema change that has no migration', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schema-'));
    const changed = path.join(dir, 'schema.prisma');
    const original = fs.readFileSync(path.join(REPO_ROOT, 'prisma', 'schema.prisma'), 'utf8');
    fs.writeFileSync(changed, original.replace('model Account {', 'model Account {\n  nickname String?'));
    const failure = await prismaCli(['check', changed], db.url).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/nickname/);
  });

  it('keep balances from going negative in the database itself', async () => {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      await expect(
        client.query(
          `INSERT INTO accounts (id, name, webhook_secret, updated_at, balance_micro_cents) VALUES ('neg', 'n', 's', now(), -1)`,
        ),
      ).rejects.toThrow(/negative/);
    } finally {
      await client.end();
    }
  });
});
