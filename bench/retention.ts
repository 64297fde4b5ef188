/**
 * `npm run bench retention`: the retention sweep against 100,000 expired outputs in MinIO, and what it costs the
 * API while it works. The jobs are inserted in a few statements; their objects (a few bytes each) arrive in four
 * tars that MinIO unpacks into separate objects (its "snowball" upload). Then, in one run: submit throughput and the
 * first page of GET /v1/jobs (on the very account being swept) without the sweep, while the sweep works (one run of
 * retentionSweepWorkflow), and without it again; and the sweep's objects per second. The API runs in this process,
 * the workflow worker (admissions and the sweep) in one of its own, as they run in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { REPO_ROOT } from '../src/config';
import { RETENTION_SCHEDULE_ID, retentionSweepWorkflowContract } from '../src/contracts/workflows/retention';
import { startWorkflow } from '../src/temporal/workflows';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { eventually, startTestStack, workerProcessEnv, type TestStack } from '../test/support/stack';
import { fmt, headline, printTable, runConcurrently, summarize, timed, type Headline } from './stats';

const OUTPUTS = 100_000;
/** Admission alone: no worker serves lumina here, so these jobs stay pending and cost nothing after their submit. */
const SUBMIT_MODEL = 'lumina/lumi-xl/text-to-image';
const SUBMITS_PER_ROUND = 80;
/** Accounts the submits are spread over: the model's per-account rate limit (60 a minute) never binds. */
const CLIENT_ACCOUNTS = 64;
const SUBMIT_CONCURRENCY = 8;
const LISTINGS_PER_ROUND = 40;
const ROUNDS_WITHOUT = 3;
const OBJECT_BYTES = Buffer.from('gm-bench');
const SEED_CHUNK = 2000;
const TAR_ENTRIES = 25_000;

/** One ustar entry: a 512-byte header and the data padded to 512 bytes. */
function tarEntry(name: string, data: Buffer): Buffer {
  const header = Buffer.alloc(512);
  const field = (offset: number, length: number, value: string) => header.write(value, offset, length, 'ascii');
  const octal = (offset: number, length: number, value: number) => field(offset, length, `${value.toString(8).padStart(length - 1, '0')}\0`);
  field(0, 100, name);
  octal(100, 8, 0o644);
  octal(108, 8, 0);
  octal(116, 8, 0);
  octal(124, 12, data.length);
  octal(136, 12, Math.floor(Date.now() / 1000));
  field(148, 8, '        ');
  field(156, 1, '0');
  field(257, 6, 'ustar\0');
  field(263, 2, '00');
  let sum = 0;
  for (const byte of header) sum += byte;
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  const padded = Buffer.alloc(Math.ceil(data.length / 512) * 512);
  data.copy(padded);
  return Buffer.concat([header, padded]);
}

/** The expired outputs: completed jobs of `account` whose retention passed an hour ago, one small object each. */
async function seedExpiredOutputs(stack: TestStack, account: TestAccount, prefix: string): Promise<string[]> {
  const keys = Array.from({ length: OUTPUTS }, (_, n) => `${prefix}${String(n).padStart(6, '0')}/0.png`);
  // In chunks: each row's job event takes the account's event counter, and one statement taking it 100,000 times
  // walks an ever longer chain of that row's versions.
  for (let first = 0; first < OUTPUTS; first += SEED_CHUNK) {
    await stack.prisma.$executeRaw`
      INSERT INTO jobs (id, account_id, model_slug, model_id, version_id, provider_id, status, input, cost_micro_cents,
                        estimated_completion_time, created_at, updated_at, completed_at, progress, outputs, retention_seconds,
                        outputs_retained_until, stored_output_bytes, stored_output_count)
      SELECT ${prefix} || lpad(n::text, 6, '0'), ${account.accountId}, ${SUBMIT_MODEL}, ${SUBMIT_MODEL}, 'v1', 'lumina', 'completed',
             '{"prompt":"bench"}'::jsonb, 0, ts, ts, ts, ts, 100,
             jsonb_build_array(jsonb_build_object('key', ${prefix} || lpad(n::text, 6, '0') || '/0.png', 'contentType', 'image/png',
                                                  'sizeBytes', ${OBJECT_BYTES.length}::int)),
             3600, ts + interval '1 hour', ${OBJECT_BYTES.length}::int, 1
      FROM generate_series(${first}::int, ${Math.min(OUTPUTS, first + SEED_CHUNK) - 1}::int) AS n,
           LATERAL (SELECT now() - interval '2 hours' - n * interval '1 millisecond' AS ts) t`;
  }
  // Tars of 25 MB: MinIO unpacks a tar sent in one PUT, and the client sends anything over 64 MB in parts.
  const { storage } = stack.api.deps;
  for (let first = 0; first < keys.length; first += TAR_ENTRIES) {
    const tar = Buffer.concat([...keys.slice(first, first + TAR_ENTRIES).map((key) => tarEntry(key, OBJECT_BYTES)), Buffer.alloc(1024)]);
    await storage.client.putObject(storage.outputsBucket, `${prefix}bench-${first}.tar`, tar, tar.length, { 'X-Amz-Meta-Snowball-Auto-Extract': 'true' });
  }
  return keys;
}

async function countObjects(stack: TestStack, prefix: string): Promise<number> {
  const { storage } = stack.api.deps;
  let count = 0;
  for await (const item of storage.client.listObjectsV2(storage.outputsBucket, prefix, true)) if (item.name?.endsWith('.png')) count++;
  return count;
}

interface Round {
  submitMs: number;
  listingMs: number[];
  /** Submits answered 503 and sent again. */
  shed: number;
}

async function measureRound(stack: TestStack, clients: TestAccount[], swept: TestAccount, offset: number): Promise<Round> {
  const shed = { count: 0 };
  const submitMs = await runConcurrently(SUBMITS_PER_ROUND, SUBMIT_CONCURRENCY, async (i) => {
    const account = clients[(offset + i) % clients.length];
    // As a client does: a submit shed with 503 (nothing charged) is sent again after its Retry-After.
    for (;;) {
      const res = await fetch(`${stack.url}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: SUBMIT_MODEL, input: { prompt: `bench ${offset + i}` } }),
      });
      if (res.status === 201) {
        await res.arrayBuffer();
        return;
      }
      if (res.status !== 503) throw new Error(`submit answered ${res.status}: ${await res.text()}`);
      shed.count += 1;
      await res.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? '1') * 1000));
    }
  });
  const listingMs: number[] = [];
  for (let i = 0; i < LISTINGS_PER_ROUND; i++) {
    const [, ms] = await timed(async () => {
      const res = await fetch(`${stack.url}/v1/jobs?limit=20`, { headers: { authorization: `Bearer ${swept.apiKey}` } });
      if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
      await res.arrayBuffer();
    });
    listingMs.push(ms);
  }
  return { submitMs, listingMs, shed: shed.count };
}

function figures(rounds: Round[]) {
  const submitMs = rounds.reduce((sum, r) => sum + r.submitMs, 0);
  return { rounds: rounds.length, shed: rounds.reduce((sum, r) => sum + r.shed, 0), submitRate: (rounds.length * SUBMITS_PER_ROUND) / (submitMs / 1000), listingP50: summarize(rounds.flatMap((r) => r.listingMs)).p50 };
}

/** The workflow worker in a process of its own, once it serves the jobs queue; its own schedule of the sweep paused. */
async function startWorkflowWorkerProcess(stack: TestStack): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('src', 'workers', 'main.ts'), '--workflows'], {
    cwd: REPO_ROOT,
    env: workerProcessEnv(stack.config, { outputs: { retentionSweepIntervalSeconds: 600 } }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const schedule = stack.api.deps.temporal.schedule.getHandle(RETENTION_SCHEDULE_ID);
  await eventually(() => schedule.describe().then(() => true, () => undefined), 180_000, 500, 'the worker process');
  await schedule.pause('the benchmark starts its own sweep');
  return child;
}

export async function retentionBench(): Promise<Headline[]> {
  const stack = await startTestStack({ workflowWorker: false, env: { LOG_LEVEL: 'error' } });
  let worker: ChildProcess | undefined;
  try {
    worker = await startWorkflowWorkerProcess(stack);
    const swept = await createTestAccount(stack.prisma, { name: 'retention bench' });
    const clients: TestAccount[] = [];
    for (let i = 0; i < CLIENT_ACCOUNTS; i++) {
      clients.push(await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 100_000 }));
    }
    const prefix = `job_rb${randomUUID().slice(0, 8)}_`;
    const [keys, seedMs] = await timed(() => seedExpiredOutputs(stack, swept, prefix));
    const stored = await countObjects(stack, prefix);
    console.log(`retention: ${OUTPUTS.toLocaleString('en-US')} expired jobs and ${stored.toLocaleString('en-US')} objects in MinIO made in ${(seedMs / 1000).toFixed(1)} s`);
    if (stored !== keys.length) throw new Error(`MinIO holds ${stored} of the ${keys.length} objects: its tar upload did not unpack them`);

    let offset = 0;
    for (let i = 0; i < 2; i++) await measureRound(stack, clients, swept, (offset += SUBMITS_PER_ROUND)); // warm-up
    const before: Round[] = [];
    for (let i = 0; i < ROUNDS_WITHOUT; i++) before.push(await measureRound(stack, clients, swept, (offset += SUBMITS_PER_ROUND)));

    const started = performance.now();
    const handle = await startWorkflow(stack.api.deps.temporal, retentionSweepWorkflowContract, {
      taskQueue: stack.config.temporal.jobsTaskQueue,
      workflowId: `retention-bench-${randomUUID()}`,
      args: [],
    });
    let sweepMs = 0;
    const result = handle.result().then((r) => {
      sweepMs = performance.now() - started;
      return r;
    });
    const during: Round[] = [];
    for (;;) {
      const round = await measureRound(stack, clients, swept, (offset += SUBMITS_PER_ROUND));
      if (sweepMs > 0) break; // the sweep ended within this round: it does not count as one beside it
      during.push(round);
    }
    const swept100k = await result;
    const after: Round[] = [];
    for (let i = 0; i < ROUNDS_WITHOUT; i++) after.push(await measureRound(stack, clients, swept, (offset += SUBMITS_PER_ROUND)));

    const left = await countObjects(stack, prefix);
    const rate = swept100k.objects / (sweepMs / 1000);
    const without = figures([...before, ...after]);
    const beside = figures(during);
    console.log(
      `retention: the sweep deleted ${swept100k.objects.toLocaleString('en-US')} objects of ${swept100k.jobs.toLocaleString('en-US')} jobs in ` +
        `${(sweepMs / 1000).toFixed(1)} s (${rate.toFixed(0)} objects/s); ${left} left in MinIO`,
    );
    printTable([
      ['what', 'without the sweep', 'while it works', 'ratio'],
      [
        `submit throughput (${SUBMITS_PER_ROUND} at c=${SUBMIT_CONCURRENCY} a round; ${without.rounds} / ${beside.rounds} rounds)`,
        `${without.submitRate.toFixed(1)} jobs/s`,
        `${beside.submitRate.toFixed(1)} jobs/s`,
        `${(beside.submitRate / without.submitRate).toFixed(2)}x`,
      ],
      [`first page of GET /v1/jobs, limit 20 (p50)`, fmt(without.listingP50), fmt(beside.listingP50), `${(beside.listingP50 / without.listingP50).toFixed(2)}x`],
      ['submits shed with 503 and sent again', String(without.shed), String(beside.shed), ''],
    ]);
    console.log(`retention: batches of ${stack.config.outputs.retentionSweepBatch}, ${stack.config.outputs.retentionSweepConcurrency} side by side`);
    if (beside.rounds === 0) console.log('retention: the sweep ended before one round beside it finished: no figure while it works');
    return [
      headline('retention sweep, objects deleted per second', rate, 1000, 'at least', ' objects/s'),
      headline('submit throughput while the sweep works vs without', beside.submitRate / without.submitRate, 0.9, 'at least'),
      headline('first listing page p50 while the sweep works vs without', beside.listingP50 / without.listingP50, 1.1, 'at most'),
    ];
  } finally {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker!.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
    await stack.stop();
  }
}
