/**
 * GET /v1/jobs on an account with 1,050,000 jobs (plus 200,000 of another account): the first page and a page
 * 5,000 pages deep (limit 100), without a filter and with the status and model filters, through the API; beside
 * the same SQL through node-postgres (the floor: what PostgreSQL itself takes). Requests alternate between the
 * cases, so all see the same machine load; the figures that matter are the ratios.
 */
import { Client as PgClient } from 'pg';
import { encodeCursor } from '../src/jobs/cursor';
import { createTestAccount } from '../test/support/accounts';
import { startTestApi } from '../test/support/api';
import { fmt, headline, printTable, summarize, timed, type Headline } from './stats';

/** A little over a million, so the status and model filters (half of the jobs each) still reach 5,000 pages deep. */
const JOBS = 1_050_000;
const OTHER_JOBS = 200_000;
const LIMIT = 100;
const DEPTH_PAGES = 5_000;
const ROUNDS = 60;
const MODELS = ['pixelforge/forge-pro/text-to-image', 'pixelforge/forge-lite/text-to-image'];

/** Jobs one per second back from a fixed time; half failed, half completed; two models alternating, independently. */
async function insertJobs(pg: PgClient, accountId: string, count: number, prefix: string): Promise<void> {
  await pg.query(
    `INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                       estimated_completion_time, created_at, updated_at)
     SELECT $2 || lpad(n::text, 8, '0'), $1,
            CASE WHEN n % 2 = 0 THEN $4 ELSE $5 END, CASE WHEN n % 2 = 0 THEN $4 ELSE $5 END, 'v1', 'pixelforge',
            (CASE WHEN (n / 2) % 2 = 0 THEN 'failed' ELSE 'completed' END)::job_status, '{"prompt":"bench"}'::jsonb, 0,
            ts, ts, ts
     FROM generate_series(1, $3::int) AS n, LATERAL (SELECT timestamptz '2026-01-01' - n * interval '1 second' AS ts) t`,
    [accountId, prefix, count, MODELS[0], MODELS[1]],
  );
}

interface Case {
  name: string;
  filter: { status?: string; model?: string };
}

const CASES: Case[] = [
  { name: 'no filter', filter: {} },
  { name: 'status=failed', filter: { status: 'failed' } },
  { name: `model=${MODELS[1]}`, filter: { model: MODELS[1] } },
];

export async function listingBench(): Promise<Headline[]> {
  const api = await startTestApi({ LOG_LEVEL: 'error' });
  const pg = new PgClient({ connectionString: api.deps.config.database.url });
  await pg.connect();
  try {
    const main = await createTestAccount(api.deps.prisma, { name: 'listing bench' });
    const other = await createTestAccount(api.deps.prisma, { name: 'listing bench, other' });
    const [, insertMs] = await timed(async () => {
      // Bulk rows without the per-row event trigger (events are not what is measured), then fresh statistics.
      await pg.query('ALTER TABLE jobs DISABLE TRIGGER USER');
      try {
        await insertJobs(pg, main.accountId, JOBS, 'job_benchmain');
        await insertJobs(pg, other.accountId, OTHER_JOBS, 'job_benchother');
      } finally {
        await pg.query('ALTER TABLE jobs ENABLE TRIGGER USER');
      }
      await pg.query('ANALYZE jobs');
    });
    console.log(`listing: ${JOBS.toLocaleString('en-US')} jobs of one account and ${OTHER_JOBS.toLocaleString('en-US')} of another inserted in ${(insertMs / 1000).toFixed(1)} s`);

    const secret = api.deps.config.jobs.cursorSecret;
    const headers = { authorization: `Bearer ${main.apiKey}` };
    const rows: string[][] = [];
    const headlines: Headline[] = [];
    for (const c of CASES) {
      const where = [`account_id = $1`, c.filter.status ? `status = '${c.filter.status}'` : '', c.filter.model ? `model_slug = '${c.filter.model}'` : '']
        .filter(Boolean)
        .join(' AND ');
      const deep = await pg.query<{ created_at: Date; id: string }>(
        `SELECT created_at, id FROM jobs WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [main.accountId, DEPTH_PAGES * LIMIT - 1],
      );
      const position = deep.rows[0];
      if (!position) throw new Error(`fewer than ${DEPTH_PAGES} pages for ${c.name}`);
      const filters = JSON.stringify([c.filter.status ?? null, c.filter.model ?? null]);
      const cursor = encodeCursor(secret, main.accountId, filters, { createdAt: position.created_at, id: position.id });
      const query = new URLSearchParams({ limit: String(LIMIT), ...c.filter });
      const apiPage = async (withCursor: boolean) => {
        const url = `${api.url}/v1/jobs?${query}${withCursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await fetch(url, { headers });
        if (res.status !== 200) throw new Error(`GET /v1/jobs answered ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as { jobs: unknown[] };
        if (body.jobs.length !== LIMIT) throw new Error(`a page of ${body.jobs.length} jobs`);
      };
      const sqlPage = async (withCursor: boolean) => {
        const keyset = withCursor ? ' AND (created_at, id) < ($2, $3)' : '';
        const params = withCursor ? [main.accountId, position.created_at, position.id] : [main.accountId];
        const result = await pg.query(
          `SELECT id, status, progress, model_slug, created_at, completed_at FROM jobs WHERE ${where}${keyset}
           ORDER BY created_at DESC, id DESC LIMIT ${LIMIT + 1}`,
          params,
        );
        if (result.rows.length !== LIMIT + 1) throw new Error(`SQL page of ${result.rows.length} rows`);
      };
      for (let i = 0; i < 10; i++) await Promise.all([apiPage(false), apiPage(true)]); // warm-up
      const samples = { apiFirst: [] as number[], apiDeep: [] as number[], sqlFirst: [] as number[], sqlDeep: [] as number[], http: [] as number[] };
      for (let i = 0; i < ROUNDS; i++) {
        // The floor of any answer of this API: an HTTP round trip to a route that reads nothing.
        samples.http.push((await timed(() => fetch(`${api.url}/healthz`).then((r) => r.text())))[1]);
        samples.apiFirst.push((await timed(() => apiPage(false)))[1]);
        samples.apiDeep.push((await timed(() => apiPage(true)))[1]);
        samples.sqlFirst.push((await timed(() => sqlPage(false)))[1]);
        samples.sqlDeep.push((await timed(() => sqlPage(true)))[1]);
      }
      const p50 = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v).p50])) as Record<keyof typeof samples, number>;
      headlines.push(
        headline(`listing 5,000 pages deep vs first page, ${c.name}`, p50.apiDeep / p50.apiFirst, 1.3, 'at most'),
        headline(`listing first page vs the same SQL, ${c.name}`, p50.apiFirst / p50.sqlFirst, 2, 'at most'),
      );
      rows.push([
        c.name,
        fmt(p50.apiFirst),
        fmt(p50.apiDeep),
        `${(p50.apiDeep / p50.apiFirst).toFixed(2)}x`,
        fmt(p50.sqlFirst),
        fmt(p50.sqlDeep),
        `${(p50.apiFirst / p50.sqlFirst).toFixed(2)}x`,
        fmt(p50.http),
      ]);
    }
    console.log(`  GET /v1/jobs?limit=${LIMIT}, p50 of ${ROUNDS} requests each, deep = ${DEPTH_PAGES.toLocaleString('en-US')} pages in`);
    printTable([['case', 'API first', 'API deep', 'deep/first', 'SQL first', 'SQL deep', 'API/SQL first', 'GET /healthz'], ...rows]);
    return headlines;
  } finally {
    await pg.end();
    await api.stop();
  }
}
