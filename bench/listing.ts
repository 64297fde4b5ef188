/**
 * GET /v1/jobs on an account with 1,150,000 jobs (plus 200,000 of another account; BENCH_LISTING_JOBS sets the
 * first figure's 1,050,000 of two models): the first page and the pages of a cursor walked from page 5,001 on
 * (limit 100), without a filter and with the status and model filters, through the API; beside the same SQL
 * through node-postgres (the floor: what PostgreSQL itself takes). The rows lie in the table in no order of their
 * creation, as a job's updates leave them, and the table is vacuumed, as autovacuum keeps it. Each walked page is
 * one the run has not read before, so it pays what a deep page pays in production: its table and index pages are
 * not in PostgreSQL's buffer cache, where the first page's always are. Requests alternate between the cases, so
 * all see the same machine load; the figures that matter are the ratios. Then what PostgreSQL reads for a first
 * and a deep page (EXPLAIN (ANALYZE, BUFFERS)), and every combination of filters, with and without a cursor, and
 * the rows read for each (EXPLAIN ANALYZE): a page must read at most its `limit + 1` rows, also when nothing
 * matches.
 */
import { Client as PgClient } from 'pg';
import { decodeCursor, encodeCursor } from '../src/db/keysetCursor';
import { jobPageSql, type JobKeyset } from '../src/jobs/list';
import type { JobStatus } from '../src/shared/jobs';
import { createTestAccount } from '../test/support/accounts';
import { startTestApi } from '../test/support/api';
import { explainQuery } from '../test/support/queryPlans';
import { fmt, headline, printTable, summarize, timed, type Headline } from './stats';

/** A little over a million, so the status and model filters (half of the jobs each) still reach 5,000 pages deep. */
const JOBS = Number(process.env.BENCH_LISTING_JOBS ?? 1_050_000);
const OTHER_JOBS = 200_000;
const LIMIT = 100;
const DEPTH_PAGES = 5_000;
const ROUNDS = 60;
/** Where the uncounted rounds read their deep page, over and over: well before the walk, which they leave cold. */
const WARM_UP_DEPTH_PAGES = 4_000;
/**
 * Uncounted rounds before each case's measured ones: the same requests in the same order. V8 optimises the code of a
 * request (Express, fetch, node-postgres) only after a few hundred of them: after the 10 rounds this took before,
 * `GET /healthz`, which reads nothing, still took 0.86–1.31x the page's SQL, against 0.60–0.84x after 300 (three
 * runs each), so the first page was timed mostly before its code was optimised. Measured apart, the figures stop
 * moving after about 200 rounds.
 */
const WARM_UP_ROUNDS = 300;
const MODELS = ['pixelforge/forge-pro/text-to-image', 'pixelforge/forge-lite/text-to-image'];
/** A model whose jobs all completed: `status=failed` with it matches nothing, though both filters match plenty. */
const COMPLETED_MODEL = 'pixelforge/forge-max/text-to-image';
const COMPLETED_MODEL_JOBS = 100_000;
const STATUS_MODEL_INDEX = 'jobs_listing_status_model_idx';

/**
 * Jobs one per second back from a fixed time; half failed, half completed; two models alternating, independently;
 * written in random order, so a page's rows lie on as many table pages as they would once updates have moved them.
 */
async function insertJobs(pg: PgClient, accountId: string, count: number, prefix: string): Promise<void> {
  await pg.query(
    `INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                       estimated_completion_time, created_at, updated_at)
     SELECT $2 || lpad(n::text, 8, '0'), $1,
            CASE WHEN n % 2 = 0 THEN $4 ELSE $5 END, CASE WHEN n % 2 = 0 THEN $4 ELSE $5 END, 'v1', 'pixelforge',
            (CASE WHEN (n / 2) % 2 = 0 THEN 'failed' ELSE 'completed' END)::job_status, '{"prompt":"bench"}'::jsonb, 0,
            ts, ts, ts
     FROM generate_series(1, $3::int) AS n, LATERAL (SELECT timestamptz '2026-01-01' - n * interval '1 second' AS ts) t
     ORDER BY random()`,
    [accountId, prefix, count, MODELS[0], MODELS[1]],
  );
}

/** Completed jobs of COMPLETED_MODEL, spread between the others over the same time. */
async function insertCompletedModelJobs(pg: PgClient, accountId: string): Promise<void> {
  await pg.query(
    `INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                       estimated_completion_time, created_at, updated_at)
     SELECT 'job_benchdone' || lpad(n::text, 8, '0'), $1, $2, $2, 'v1', 'pixelforge', 'completed', '{"prompt":"bench"}'::jsonb, 0, ts, ts, ts
     FROM generate_series(1, $3::int) AS n,
          LATERAL (SELECT timestamptz '2026-01-01' - (n * $4::float8 + 0.5) * interval '1 second' AS ts) t
     ORDER BY random()`,
    [accountId, COMPLETED_MODEL, COMPLETED_MODEL_JOBS, JOBS / COMPLETED_MODEL_JOBS],
  );
}

interface Filter {
  status?: JobStatus;
  model?: string;
}

interface Case {
  name: string;
  filter: Filter;
}

/** Every combination of the listing's filters, each read as a first page and after a cursor. */
const COMBINATIONS: Case[] = [
  { name: 'no filter', filter: {} },
  { name: 'status', filter: { status: 'failed' } },
  { name: 'model', filter: { model: MODELS[1] } },
  { name: 'status+model', filter: { status: 'failed', model: MODELS[1] } },
  { name: 'status, none match', filter: { status: 'cancelled' } },
  { name: 'model, none match', filter: { model: 'pixelforge/forge-none/text-to-image' } },
  { name: 'status+model, none match', filter: { status: 'failed', model: COMPLETED_MODEL } },
];
const COMBINATION_REQUESTS = 15;
const EXPLAIN_RUNS = 5;

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
      // Bulk rows without the per-row event trigger (events are not what is measured), then fresh statistics. The
      // inserts are flushed at their commits, as on a server with the default synchronous_commit: the benchmark's
      // cluster commits asynchronously, and VACUUM marks no page all-visible before its rows' commits are flushed.
      await pg.query('SET synchronous_commit TO on');
      await pg.query('ALTER TABLE jobs DISABLE TRIGGER USER');
      try {
        await insertJobs(pg, main.accountId, JOBS, 'job_benchmain');
        await insertCompletedModelJobs(pg, main.accountId);
        await insertJobs(pg, other.accountId, OTHER_JOBS, 'job_benchother');
      } finally {
        await pg.query('ALTER TABLE jobs ENABLE TRIGGER USER');
      }
      // Autovacuum's work, done now: statistics, and the visibility map of rows no transaction can still miss.
      await pg.query('VACUUM (ANALYZE) jobs');
    });
    console.log(`listing: ${(JOBS + COMPLETED_MODEL_JOBS).toLocaleString('en-US')} jobs of one account and ${OTHER_JOBS.toLocaleString('en-US')} of another inserted in ${(insertMs / 1000).toFixed(1)} s`);

    const secret = api.deps.config.jobs.cursorSecret;
    const headers = { authorization: `Bearer ${main.apiKey}` };
    const rows: string[][] = [];
    const headlines: Headline[] = [];
    const positionAt = async (filter: Filter, offset: number): Promise<JobKeyset | undefined> => {
      const where = ['account_id = $1', filter.status ? `status = '${filter.status}'` : '', filter.model ? `model_slug = '${filter.model}'` : ''];
      const { rows: [row] } = await pg.query<JobKeyset>(
        `SELECT created_at AS "createdAt", seq FROM jobs WHERE ${where.filter(Boolean).join(' AND ')} ORDER BY created_at DESC, seq DESC OFFSET $2 LIMIT 1`,
        [main.accountId, offset],
      );
      return row;
    };
    const cursorFor = (filter: Filter, position: JobKeyset) =>
      encodeCursor(secret, main.accountId, JSON.stringify([filter.status ?? null, filter.model ?? null]), { createdAt: position.createdAt, id: position.seq });
    const pageUrl = (filter: Filter, cursor: string | null) =>
      `${api.url}/v1/jobs?${new URLSearchParams({ limit: String(LIMIT), ...filter })}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;

    const filtersOf = (filter: Filter) => JSON.stringify([filter.status ?? null, filter.model ?? null]);
    const keysetOf = (filter: Filter, cursor: string): JobKeyset => {
      const { createdAt, id } = decodeCursor(secret, main.accountId, filtersOf(filter), cursor);
      return { createdAt, seq: id };
    };
    const buffersRows: string[][] = [];

    for (const c of CASES) {
      // The cursor the API hands out 5,000 pages in (the position of the last job of the page before), and the one
      // the uncounted rounds read over and over, before it.
      const position = await positionAt(c.filter, DEPTH_PAGES * LIMIT - 1);
      const warmUpPosition = await positionAt(c.filter, WARM_UP_DEPTH_PAGES * LIMIT - 1);
      if (!position || !warmUpPosition) throw new Error(`fewer than ${DEPTH_PAGES} pages for ${c.name}`);
      // What PostgreSQL reads for the first page (as every run of it finds it) and for the walk's first page, unread.
      const firstPage = jobPageSql(main.accountId, c.filter, null, LIMIT + 1);
      await pg.query(firstPage);
      const first = await explainBuffers(pg, firstPage);
      const deepPeek = await positionAt(c.filter, (DEPTH_PAGES + ROUNDS + 1) * LIMIT - 1);
      if (!deepPeek) throw new Error(`fewer than ${DEPTH_PAGES + ROUNDS + 1} pages for ${c.name}`);
      const deep = await explainBuffers(pg, jobPageSql(main.accountId, c.filter, deepPeek, LIMIT + 1));
      buffersRows.push(
        [c.name, 'first', first.scan, String(first.heapFetches ?? ''), String(first.hit), String(first.read), fmt(first.executionMs)],
        [c.name, `page ${(DEPTH_PAGES + ROUNDS + 2).toLocaleString('en-US')}, unread`, deep.scan, String(deep.heapFetches ?? ''), String(deep.hit), String(deep.read), fmt(deep.executionMs)],
      );
      let walked = cursorFor(c.filter, position);
      const warmUpCursor = cursorFor(c.filter, warmUpPosition);
      /** The page at `cursor`; the walk goes on from its nextCursor. */
      const apiPage = async (cursor: string | null) => {
        const res = await fetch(pageUrl(c.filter, cursor), { headers });
        if (res.status !== 200) throw new Error(`GET /v1/jobs answered ${res.status}: ${await res.text()}`);
        const body = (await res.json()) as { jobs: unknown[]; nextCursor: string | null };
        if (body.jobs.length !== LIMIT || !body.nextCursor) throw new Error(`a page of ${body.jobs.length} jobs`);
        return body.nextCursor;
      };
      // The very statement the API runs for the page.
      const sqlPage = async (after: JobKeyset | null) => {
        const result = await pg.query(jobPageSql(main.accountId, c.filter, after, LIMIT + 1));
        if (result.rows.length !== LIMIT + 1) throw new Error(`SQL page of ${result.rows.length} rows`);
      };
      const samples = { apiFirst: [] as number[], apiDeep: [] as number[], sqlFirst: [] as number[], sqlDeep: [] as number[], http: [] as number[] };
      const round = async (record: boolean) => {
        const measured = async (key: keyof typeof samples, fn: () => Promise<unknown>) => {
          const [, ms] = await timed(fn);
          if (record) samples[key].push(ms);
        };
        // The floor of any answer of this API: an HTTP round trip to a route that reads nothing.
        await measured('http', () => fetch(`${api.url}/healthz`).then((r) => r.text()));
        await measured('apiFirst', () => apiPage(null));
        // The walk: each counted round reads the next page, one no request has read before.
        const deepCursor = record ? walked : warmUpCursor;
        await measured('apiDeep', async () => {
          const next = await apiPage(deepCursor);
          if (record) walked = next;
        });
        await measured('sqlFirst', () => sqlPage(null));
        // The same page as the API's just now: read again, so in the buffer cache.
        await measured('sqlDeep', () => sqlPage(keysetOf(c.filter, deepCursor)));
      };
      for (let i = 0; i < WARM_UP_ROUNDS; i++) await round(false);
      for (let i = 0; i < ROUNDS; i++) await round(true);
      const p50 = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v).p50])) as Record<keyof typeof samples, number>;
      headlines.push(
        headline(`listing 5,000 pages deep vs first page, ${c.name}`, p50.apiDeep / p50.apiFirst, 1.3, 'at most'),
        headline(`listing first page vs the same SQL, ${c.name}`, p50.apiFirst / p50.sqlFirst, 2.5, 'at most'),
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
        `${(p50.http / p50.sqlFirst).toFixed(2)}x`,
      ]);
    }
    console.log(`  what PostgreSQL reads for a page (EXPLAIN (ANALYZE, BUFFERS)): 8 KB pages found in its buffer cache (hit) and read from the OS (read)`);
    printTable([['case', 'page', 'scan', 'heap fetches', 'hit', 'read', 'SQL'], ...buffersRows]);
    console.log(
      `  GET /v1/jobs?limit=${LIMIT}, p50 of ${ROUNDS} requests each after ${WARM_UP_ROUNDS} uncounted rounds; deep = the walk from page ${(DEPTH_PAGES + 1).toLocaleString('en-US')}, a new page each request (SQL deep: the same page again, cached)`,
    );
    printTable([['case', 'API first', 'API deep', 'deep/first', 'SQL first', 'SQL deep', 'API/SQL first', 'GET /healthz', 'healthz/SQL first'], ...rows]);

    // What each combination of filters reads, as a first page and after a cursor a quarter of the way in.
    const middle = await positionAt({}, Math.floor((JOBS + COMPLETED_MODEL_JOBS) / 4));
    if (!middle) throw new Error('no position a quarter of the way in');
    const explained = async (filter: Filter, after: JobKeyset | null) => {
      const readings = [];
      for (let i = 0; i < EXPLAIN_RUNS; i++) readings.push(await explainQuery(pg, jobPageSql(main.accountId, filter, after, LIMIT + 1)));
      return { ...readings[0]!, executionMs: summarize(readings.map((r) => r.executionMs)).p50 };
    };
    const planRows: string[][] = [];
    let mostRowsRead = 0;
    for (const c of COMBINATIONS) {
      for (const after of [null, middle]) {
        const reading = await explained(c.filter, after);
        mostRowsRead = Math.max(mostRowsRead, reading.rowsRead);
        const url = pageUrl(c.filter, after ? cursorFor(c.filter, after) : null);
        const apiMs: number[] = [];
        for (let i = 0; i < COMBINATION_REQUESTS; i++) {
          const [status, ms] = await timed(() => fetch(url, { headers }).then(async (res) => (await res.arrayBuffer(), res.status)));
          if (status !== 200) throw new Error(`GET /v1/jobs answered ${status} for ${c.name}`);
          apiMs.push(ms);
        }
        const index = [...new Set(reading.indexes)].join(', ') || reading.scans.join(', ');
        planRows.push([c.name, after ? 'after a cursor' : 'first', String(reading.rowsRead), index, fmt(reading.executionMs), fmt(summarize(apiMs).p50)]);
      }
    }
    // The same query without the status+model index, dropped in a transaction that is rolled back.
    const noMatch = COMBINATIONS.find((c) => c.name === 'status+model, none match')!;
    for (const after of [null, middle]) {
      await pg.query('BEGIN');
      try {
        await pg.query(`DROP INDEX IF EXISTS ${STATUS_MODEL_INDEX}`);
        const reading = await explained(noMatch.filter, after);
        const index = [...new Set(reading.indexes)].join(', ') || reading.scans.join(', ');
        planRows.push([`${noMatch.name}, without ${STATUS_MODEL_INDEX}`, after ? 'after a cursor' : 'first', String(reading.rowsRead), index, fmt(reading.executionMs), '']);
      } finally {
        await pg.query('ROLLBACK');
      }
    }
    console.log(`  every filter combination: rows PostgreSQL read for a page of ${LIMIT} (EXPLAIN ANALYZE), SQL time p50 of ${EXPLAIN_RUNS}, API p50 of ${COMBINATION_REQUESTS}`);
    printTable([['filters', 'page', 'rows read', 'index', 'SQL', 'API'], ...planRows]);
    headlines.push({
      target: `listing rows read for a page, every filter combination, first page and after a cursor (at most ${LIMIT + 1})`,
      measured: String(mostRowsRead),
      met: mostRowsRead <= LIMIT + 1,
    });
    return headlines;
  } finally {
    await pg.end();
    await api.stop();
  }
}

interface BufferReading {
  /** The scan that reads the jobs: 'Index Scan' or 'Index Only Scan', and its index. */
  scan: string;
  /** Rows an index-only scan still looked up in the table (not yet all-visible). */
  heapFetches?: number;
  hit: number;
  read: number;
  executionMs: number;
}

interface BufferPlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: BufferPlanNode[];
}

/** EXPLAIN (ANALYZE, BUFFERS) of a page's statement: its scan, and the buffers the whole statement hit and read. */
async function explainBuffers(pg: PgClient, query: { text: string; values: unknown[] }): Promise<BufferReading> {
  const { rows } = await pg.query<{ 'QUERY PLAN': [{ Plan: BufferPlanNode; 'Execution Time': number }] }>({
    text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query.text}`,
    values: query.values,
  });
  const [{ Plan, 'Execution Time': executionMs }] = rows[0]!['QUERY PLAN'];
  const scans: BufferPlanNode[] = [];
  const walk = (node: BufferPlanNode) => {
    if (node['Node Type'].startsWith('Index')) scans.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(Plan);
  const scan = scans.map((s) => `${s['Node Type']} on ${s['Index Name']}`).join(', ') || Plan['Node Type'];
  const heapFetches = scans.find((s) => s['Heap Fetches'] !== undefined)?.['Heap Fetches'];
  return { scan, heapFetches, hit: Plan['Shared Hit Blocks'], read: Plan['Shared Read Blocks'], executionMs };
}
