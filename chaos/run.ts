/**
 * `npm run chaos`: 1,000 jobs from 20 accounts at a steady rate, with cancels and `[fail:transient]` prompts, while a
 * seeded schedule SIGKILLs and restarts the workers and either API, restarts the Temporal server (on its persistent
 * database) and PostgreSQL, and stops MinIO for 20 s. Then it checks that nothing was lost and no money went astray,
 * and prints one table of the figures. Its own throw-away stack (chaos/stack.ts): by default the production shape of
 * `npm run cluster`, with `--topology dev` the dev stack's.
 *
 * `--upstream-outages` runs 300 jobs on the routed FLUX.1 [dev] (fal, then Replicate) against the upstreams' fakes
 * while fal goes down and comes back on a seeded schedule, Replicate now and then briefly too
 * (chaos/upstreamOutages.ts); the process faults above are off. It checks the same money and deliveries, and that each
 * route was paid at most once per job and at least 99 % of the jobs completed (chaos/routeChecks.ts).
 *
 *   npm run chaos [-- --seed 7 --jobs 1000 --topology cluster|dev --keep-logs --upstream-outages]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPrisma } from '../src/db/prisma';
import { createStorage } from '../src/storage/storage';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { startHttpsReceiver } from '../test/support/httpsReceiver';
import { seededRandom } from './random';
import { checkInvariants } from './checks';
import { startStack, TOPOLOGIES, type Topology } from './stack';
import { runLoad } from './load';
import { injectFaults, type FaultLog } from './faults';
import { formatSummary } from './summary';
import { injectUpstreamOutages, outageProfile, ROUTES, startUpstreamFakes, type OutageLog, type UpstreamFakes } from './upstreamOutages';
import { checkRoutes } from './routeChecks';
import { writeJobRecords, writeUpstreamRecords } from './records';

const { Supervisor } = require('../scripts/lib/supervisor');

const ACCOUNTS = 20;
/** A steady 4 submits a second, which this stack sustains on 2 cores while it is being broken. */
const SUBMIT_INTERVAL_MS = 250;
/** Upstream outages: 2 submits a second, so 300 jobs span several of fal's outage cycles. */
const OUTAGE_SUBMIT_INTERVAL_MS = 500;
const OUTAGE_JOBS = 300;
const SETTLE_TIMEOUT_MS = 6 * 60_000;
const DELIVERY_TIMEOUT_MS = 120_000;
/** The availability goal: this share of the submits accepted within the client's retry budget. */
const ACCEPTED_SHARE_GOAL = 0.99;

interface Options {
  seed: number;
  jobs: number;
  topology: Topology;
  keepLogs: boolean;
  upstreamOutages: boolean;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const topology = (value('--topology') ?? 'cluster') as Topology;
  if (!TOPOLOGIES.includes(topology)) throw new Error(`--topology must be one of ${TOPOLOGIES.join(', ')}`);
  const upstreamOutages = argv.includes('--upstream-outages');
  return {
    seed: Number(value('--seed') ?? 1),
    jobs: Number(value('--jobs') ?? (upstreamOutages ? OUTAGE_JOBS : 1000)),
    topology,
    keepLogs: argv.includes('--keep-logs'),
    upstreamOutages,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const options = parseOptions(process.argv.slice(2));
  // Two streams, so the schedule of faults does not depend on how many submits happened before each draw.
  const faultRandom = seededRandom(options.seed);
  const loadRandom = seededRandom(options.seed + 1_000_003);
  const binaries = JSON.parse(process.env.CHAOS_BINARIES ?? '{}');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-chaos-'));
  fs.chmodSync(workDir, 0o755);
  const logDir = path.join(workDir, 'logs');
  fs.mkdirSync(logDir, { recursive: true });
  const supervisor = new Supervisor();
  const receiver = await startHttpsReceiver();
  // The upstreams' fakes run in this process, before the stack, whose processes get their addresses.
  const fakes: UpstreamFakes | undefined = options.upstreamOutages ? await startUpstreamFakes() : undefined;

  try {
    const stack = await startStack({
      supervisor,
      topology: options.topology,
      binaries,
      workDir,
      logDir,
      appEnv: { NODE_EXTRA_CA_CERTS: receiver.caPath, ...fakes?.env },
      tuning: fakes?.tuning ?? {},
      ...(fakes ? { providers: [...ROUTES], upstreamCallbacks: true } : {}),
    });
    console.log(`[chaos] ${stack.description}; logs in ${logDir}`);
    const config = loadConfig(stack.env);
    const prisma = createPrisma(config.database.url);
    const storage = createStorage(config.minio);
    const accounts: TestAccount[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000n, maxConcurrentJobs: 100 }));

    const started = Date.now();
    const load = runLoad({
      jobs: options.jobs,
      seed: options.seed,
      intervalMs: fakes ? OUTAGE_SUBMIT_INTERVAL_MS : SUBMIT_INTERVAL_MS,
      accounts,
      apiUrls: stack.apiUrls,
      webhookBaseUrl: receiver.baseUrl,
      random: loadRandom,
      ...(fakes ? { profile: outageProfile(options.seed) } : {}),
    });
    const faulting: Promise<FaultLog | OutageLog> = fakes ? injectUpstreamOutages(fakes, faultRandom, load, started) : injectFaults(stack, faultRandom, load, started);
    const [loaded, faults] = await Promise.all([load, faulting]);
    const elapsedMs = Date.now() - started;
    const ids = loaded.accepted.map((a) => a.jobId);
    const settleStarted = Date.now();
    for (;;) {
      const open = await prisma.job.count({ where: { id: { in: ids }, status: { in: ['pending', 'processing'] } } }).catch(() => Number.NaN);
      if (open === 0 || Date.now() - settleStarted > SETTLE_TIMEOUT_MS) break;
      await sleep(2_000);
    }
    const settledMs = Date.now() - started;
    // Webhook deliveries of the last jobs (and retries of those a fault delayed) need a moment to land.
    const deliveredIds = () =>
      new Set(
        receiver.requests.map((r) => {
          try {
            return JSON.parse(r.body).data?.jobId;
          } catch {
            return undefined;
          }
        }),
      );
    const deliveriesStarted = Date.now();
    while (Date.now() - deliveriesStarted < DELIVERY_TIMEOUT_MS && loaded.accepted.some((a) => !deliveredIds().has(a.jobId))) await sleep(2_000);

    const result = await checkInvariants({ prisma, storage, accepted: loaded.accepted, accounts, requests: receiver.requests });
    result.rows.unshift({
      check: `at least ${ACCEPTED_SHARE_GOAL * 100} % of submits accepted within the client's retries`,
      ok: loaded.accepted.length >= ACCEPTED_SHARE_GOAL * options.jobs,
      figure: `${loaded.accepted.length}/${options.jobs}`,
    });
    const figures: [string, string][] = [['until every job ended', `${(settledMs / 1000).toFixed(1)} s`]];
    const notes: string[] = [];
    if (fakes) {
      const routes = await checkRoutes({ prisma, storage, seed: options.seed, accepted: loaded.accepted, fakes, outages: faults as OutageLog });
      result.rows.push(...routes.rows);
      figures.push(...routes.figures);
      if (routes.failedJobs.length > 0) notes.push('failed jobs (attempt, route, role, how it ended):', ...routes.failedJobs.map((line) => `  ${line}`));
      writeUpstreamRecords(fakes, options.seed, path.join(logDir, 'upstreams.jsonl'));
    }
    await writeJobRecords(prisma, loaded.accepted, path.join(logDir, 'jobs.jsonl'));
    await prisma.$disconnect();
    fs.writeFileSync(path.join(logDir, 'attempts.jsonl'), loaded.attempts.map((a) => JSON.stringify(a)).join('\n'));
    fs.writeFileSync(path.join(logDir, 'faults.txt'), faults.timeline.join('\n'));
    console.log(
      formatSummary({
        seed: options.seed,
        jobs: options.jobs,
        stack: stack.description,
        load: loaded,
        faults,
        checks: result.rows,
        elapsedMs,
        figures,
        ...(fakes ? { mode: `upstream outages on ${ROUTES.join(' → ')}` } : {}),
      }),
    );
    if (notes.length > 0) console.log(notes.join('\n'));
    process.exitCode = result.rows.every((r) => r.ok) ? 0 : 1;
  } finally {
    await supervisor.stopAll();
    await receiver.close();
    await fakes?.close();
    if (process.exitCode === 0 && !options.keepLogs) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`logs kept in ${logDir}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
