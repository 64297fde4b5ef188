#!/usr/bin/env node
/**
 * Runs the Prisma CLI with the project's database URL (from src/config.ts) and the JS schema engine.
 *   node prisma/cli.js generate | migrate deploy | migrate diff ... | new-migration <name> | check [schema]
 * `check` exits 1 when the schema (default prisma/schema.prisma) differs from the committed migrations.
 * `new-migration` writes the SQL between the committed migrations and schema.prisma
 * (`migrate dev --create-only` is not usable with the JS schema engine).
 */
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const PRISMA_BIN = path.join(ROOT, 'node_modules', 'prisma', 'build', 'index.js');
const UNREF_LONG_TIMERS = path.join(__dirname, 'unref-long-timers.js');
const MIGRATIONS = path.join('prisma', 'migrations');
const SCHEMA = path.join('prisma', 'schema.prisma');

function databaseUrl() {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  require('tsx/cjs');
  return require(path.join(ROOT, 'src', 'config.ts')).loadConfig().database.url;
}

function prisma(args, { capture = false } = {}) {
  const result = spawnSync(process.execPath, ['--require', UNREF_LONG_TIMERS, PRISMA_BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl(), CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return result;
}

function pendingMigrationSql(schema = SCHEMA) {
  const result = prisma(['migrate', 'diff', '--from-migrations', MIGRATIONS, '--to-schema-datamodel', schema, '--script'], {
    capture: true,
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
  const sql = result.stdout.trim();
  return sql === '' || sql === '-- This is an empty migration.' ? '' : sql;
}

function newMigration(name) {
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('usage: npm run db:migrate:new -- <name>   (lowercase letters, digits and underscores)');
    process.exit(2);
  }
  const sql = pendingMigrationSql();
  if (!sql) {
    console.log('schema.prisma matches the migrations: nothing to create.');
    return;
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(ROOT, MIGRATIONS, `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), sql + '\n');
  console.log(`created ${path.relative(ROOT, dir)}/migration.sql`);
}

function main(argv) {
  const [command, ...rest] = argv;
  switch (command) {
    case 'new-migration':
      return newMigration(rest[0]);
    case 'check': {
      const sql = pendingMigrationSql(rest[0]);
      if (sql) {
        console.error('schema.prisma has changes not in prisma/migrations:\n' + sql);
        process.exit(1);
      }
      console.log('migrations match schema.prisma');
      return;
    }
    case undefined:
      console.error('usage: node prisma/cli.js <generate|migrate ...|new-migration NAME|check [schema]>');
      return process.exit(2);
    default: {
      const result = prisma(argv);
      process.exit(result.status ?? 1);
    }
  }
}

main(process.argv.slice(2));
