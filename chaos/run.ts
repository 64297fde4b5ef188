/**
 * `npm run chaos`: 1,000 jobs from 20 accounts at a steady rate, with cancels and `[fail:transient]` prompts, while a
 * seeded schedule SIGKILLs and restarts the workers and either API, restarts the Temporal server (on its persistent
 * database) and PostgreSQL, and stops MinIO for 20 s. Then it checks that nothing was lost and no money went astray,
 * and prints one table of the figures. Its own throw-away stack (chaos/stack.ts): by default the production shape of
 * `npm run cluster`, with `--topology dev` the dev stack's.
 *
 *   npm run chaos [-- --seed 7 --jobs 1000 --topology cluster|dev --keep-logs]
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
import { injectFaults } from './faults';
import { formatSummary } from './summary';

const { Supervisor } = require('../scripts/lib/supervisor');

const ACCOUNTS = 20;
/** A steady 4 submits a second, which this stack sustains on 2 cores while it is being broken. */
const SUBMIT_INTERVAL_MS = 250;
const SETTLE_TIMEOUT_MS = 6 * 60_000;
const DELIVERY_TIMEOUT_MS = 120_000;
/** The availability goal: this share of the submits accepted within the client's retry budget. */
const ACCEPTED_SHARE_GOAL = 0.99;

interface Options {
  seed: number;
  jobs: number;
  topology: Topology;
  keepLogs: boolean;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const topology = (value('--topology') ?? 'cluster') as Topology;
  if (!TOPOLOGIES.includes(topology)) throw new Error(`--topology must be one of ${TOPOLOGIES.join(', ')}`);
  return { seed: Number(value('--seed') ?? 1), jobs: Number(value('--jobs') ?? 1000), topology, keepLogs: argv.includes('--keep-logs') };
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

  try {
    const stack = await startStack({ supervisor, topology: options.topology, binaries, workDir, logDir, appEnv: { NODE_EXTRA_CA_CERTS: receiver.caPath } });
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
      intervalMs: SUBMIT_INTERVAL_MS,
      accounts,
      apiUrls: stack.apiUrls,
      webhookBaseUrl: receiver.baseUrl,
      random: loadRandom,
    });
    const [loaded, faults] = await Promise.all([load, injectFaults(stack, faultRandom, load, started)]);
    const elapsedMs = Date.now() - started;
    const ids = loaded.accepted.map((a) => a.jobId);
    const settleStarted = Date.now();
    for (;;) {
      const open = await prisma.job.count({ where: { id: { in: ids }, status: { in: ['pending', 'processing'] } } }).catch(() => Number.NaN);
      if (open === 0 || Date.now() - settleStarted > SETTLE_TIMEOUT_MS) break;
      await sleep(2_000);
    }
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
    await prisma.$disconnect();
    fs.writeFileSync(path.join(logDir, 'attempts.jsonl'), loaded.attempts.map((a) => JSON.stringify(a)).join('\n'));
    fs.writeFileSync(path.join(logDir, 'faults.txt'), faults.timeline.join('\n'));
    console.log(formatSummary({ seed: options.seed, jobs: options.jobs, stack: stack.description, load: loaded, faults, checks: result.rows, elapsedMs }));
    process.exitCode = result.rows.every((r) => r.ok) ? 0 : 1;
  } finally {
    await supervisor.stopAll();
    await receiver.close();
    if (process.exitCode === 0 && !options.keepLogs) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`logs kept in ${logDir}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
