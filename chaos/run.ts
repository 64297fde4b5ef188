/**
 * `npm run chaos`: 1,000 jobs from 20 accounts at a steady rate, with cancels and `[fail:transient]` prompts, while a
 * seeded schedule SIGKILLs and restarts the workers and the API, restarts Temporal (on its persistent database) and
 * PostgreSQL, and stops MinIO for 20 s. Then it checks that nothing was lost and no money went astray, and prints
 * the figures. Its own throw-away stack, built from the same parts as `npm run dev` (scripts/lib).
 *
 *   npm run chaos [-- --seed 7 --jobs 1000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Genmedia } from '@genmedia/client';
import { createPrisma } from '../src/db/prisma';
import { createStorage } from '../src/storage/storage';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { startHttpsReceiver } from '../test/support/httpsReceiver';
import { seededRandom } from './random';
import { checkInvariants, type Accepted } from './checks';

const { startInfrastructure } = require('../scripts/lib/infrastructure');
const postgres = require('../scripts/lib/postgres');
const temporal = require('../scripts/lib/temporal');
const minio = require('../scripts/lib/minio');
const app = require('../scripts/lib/app');
const { Supervisor } = require('../scripts/lib/supervisor');
const { freePort, waitForHttp } = require('../scripts/lib/ports');

const ACCOUNTS = 20;
const PROVIDERS = ['pixelforge', 'lumina'];
/** A steady 4 submits a second, which this stack sustains on 2 cores while it is being broken. */
const SUBMIT_INTERVAL_MS = 250;
const CANCEL_SHARE = 0.1;
const TRANSIENT_SHARE = 0.1;
const SETTLE_TIMEOUT_MS = 6 * 60_000;

interface Options {
  seed: number;
  jobs: number;
}

function parseOptions(argv: string[]): Options {
  const value = (flag: string, fallback: number) => {
    const at = argv.indexOf(flag);
    return at >= 0 ? Number(argv[at + 1]) : fallback;
  };
  return { seed: value('--seed', 1), jobs: value('--jobs', 1000) };
}

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
  const taken = new Set<number>();
  const plan = {
    logDir,
    postgres: { binDir: binaries.postgresBinDir, dataDir: path.join(workDir, 'postgres'), port: await freePort(taken) },
    temporal: { binary: binaries.temporalCli, port: await freePort(taken), dbFile: path.join(workDir, 'temporal', 'temporal.db'), namespace: 'default' },
    minio: { binary: binaries.minio, dataDir: path.join(workDir, 'minio'), port: await freePort(taken), consolePort: await freePort(taken), user: 'chaos', password: 'chaos-minio-secret' },
  };
  const apiPort = await freePort(taken);
  const supervisor = new Supervisor();
  const receiver = await startHttpsReceiver();
  const services: Record<string, any> = {};
  let stopping = false;

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'error',
    GENMEDIA_DATA_DIR: workDir,
    DATABASE_URL: postgres.databaseUrl(plan.postgres.port),
    TEMPORAL_ADDRESS: `127.0.0.1:${plan.temporal.port}`,
    TEMPORAL_NAMESPACE: 'default',
    MINIO_ENDPOINT: `http://127.0.0.1:${plan.minio.port}`,
    MINIO_ROOT_USER: plan.minio.user,
    MINIO_ROOT_PASSWORD: plan.minio.password,
    API_HOST: '127.0.0.1',
    PORT: String(apiPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${apiPort}`,
    PROVIDER_TIME_SCALE: '0.02',
    WEBHOOK_ALLOW_PRIVATE: '1',
    WEBHOOK_RETRY_SCHEDULE: '0,1,2,5,10,20,30,60',
    NODE_EXTRA_CA_CERTS: receiver.caPath,
    // Several worker processes on one host: each serves its metrics on a free port.
    WORKER_METRICS_PORT: '0',
  };
  const factories: Record<string, () => any> = {
    api: () => app.apiService(env, logDir),
    'worker:workflows': () => app.workflowWorkerService(env, logDir),
    ...Object.fromEntries(PROVIDERS.map((id) => [`worker:${id}`, () => app.providerWorkerService(id, env, logDir)])),
  };
  /** A killed or crashed application process comes back, as its restart policy would bring it back. */
  const startApp = (name: string) => {
    const service = supervisor.start(factories[name]());
    services[name] = service;
    service.exited.then(() => {
      if (!stopping && services[name] === service) setTimeout(() => !stopping && startApp(name), 500);
    });
  };
  const figures: Record<string, number> = {};
  const count = (what: string) => (figures[what] = (figures[what] ?? 0) + 1);

  try {
    await startInfrastructure(supervisor, plan);
    app.migrate(env);
    app.seed(env);
    for (const name of Object.keys(factories)) startApp(name);
    await waitForHttp(`${env.PUBLIC_BASE_URL}/readyz`, { timeoutMs: 120_000 });

    const config = loadConfig(env);
    const prisma = createPrisma(config.database.url);
    const storage = createStorage(config.minio);
    const accounts: TestAccount[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000n, maxConcurrentJobs: 100 }));

    const accepted: Accepted[] = [];
    let refused = 0;
    const load = (async () => {
      const inFlight = new Set<Promise<void>>();
      for (let i = 0; i < options.jobs; i++) {
        const account = accounts[i % ACCOUNTS];
        const client = new Genmedia({ apiKey: account.apiKey, baseUrl: env.PUBLIC_BASE_URL, retry: { maxRetries: 12, maxDelayMs: 30_000 } });
        const transient = loadRandom() < TRANSIENT_SHARE;
        const cancel = loadRandom() < CANCEL_SHARE;
        const task = (async () => {
          try {
            const submitted = await client.submit(
              {
                model: i % 2 === 0 ? 'pixelforge/forge-pro/text-to-image' : 'lumina/lumi-xl/text-to-image',
                input: { prompt: `chaos job ${i}${transient ? ' [fail:transient]' : ''}` },
                webhookUrl: `${receiver.baseUrl}/hooks/${account.accountId}`,
              },
              { idempotencyKey: `chaos-${options.seed}-${i}` },
            );
            accepted.push({ jobId: submitted.jobId, accountId: account.accountId });
            if (cancel) {
              await client.cancelJob(submitted.jobId).then(() => count('cancels accepted'), () => count('cancels refused'));
            }
          } catch (err) {
            refused += 1;
            count(`submit refused: ${(err as { code?: string }).code ?? 'error'}`);
          }
        })();
        inFlight.add(task);
        void task.finally(() => inFlight.delete(task));
        await new Promise((r) => setTimeout(r, SUBMIT_INTERVAL_MS));
      }
      await Promise.all(inFlight);
    })();

    const faults = (async () => {
      let done = false;
      void load.finally(() => (done = true));
      while (!done) {
        await new Promise((r) => setTimeout(r, 4_000 + faultRandom() * 6_000));
        if (done) break;
        const action = faultRandom();
        if (action < 0.35) {
          const name = PROVIDERS.map((p) => `worker:${p}`)[Math.floor(faultRandom() * PROVIDERS.length)];
          process.kill(-services[name].pid, 'SIGKILL');
          count(`SIGKILL ${name.replace(/:.*/, ' (provider)')}`);
        } else if (action < 0.5) {
          process.kill(-services['worker:workflows'].pid, 'SIGKILL');
          count('SIGKILL workflow worker');
        } else if (action < 0.65) {
          process.kill(-services.api.pid, 'SIGKILL');
          count('SIGKILL API');
        } else if (action < 0.77) {
          await restartInfra('temporal', () => temporal.createService({ ...plan.temporal, logFile: path.join(logDir, 'temporal.log') }), (service) =>
            temporal.waitReady({ binary: plan.temporal.binary, address: env.TEMPORAL_ADDRESS, service }),
          );
          count('restart Temporal');
        } else if (action < 0.89) {
          await restartInfra('postgres', () => postgres.createService({ ...plan.postgres, logFile: path.join(logDir, 'postgres.log') }), (service) =>
            postgres.waitReady(plan.postgres.binDir, plan.postgres.port, service),
          );
          count('restart PostgreSQL');
        } else {
          await restartInfra(
            'minio',
            () => minio.createService({ ...plan.minio, logFile: path.join(logDir, 'minio.log') }),
            (service) => minio.waitReady({ port: plan.minio.port, service }),
            20_000,
          );
          count('MinIO down 20 s');
        }
      }
    })();

    /** Stops an infrastructure service (gracefully), leaves it down for `downMs`, starts it again and waits for it. */
    async function restartInfra(name: string, create: () => any, ready: (service: any) => Promise<void>, downMs = 0) {
      const current = supervisor.services.find((s: any) => s.name === name && s.running);
      if (current) await current.stop();
      await new Promise((r) => setTimeout(r, downMs));
      const service = supervisor.start(create());
      await ready(service);
    }

    await Promise.all([load, faults]);
    const settleStarted = Date.now();
    for (;;) {
      const open = await prisma.job
        .count({ where: { id: { in: accepted.map((a) => a.jobId) }, status: { in: ['pending', 'processing'] } } })
        .catch(() => Number.NaN);
      if (open === 0 || Date.now() - settleStarted > SETTLE_TIMEOUT_MS) break;
      await new Promise((r) => setTimeout(r, 2_000));
    }
    // Webhook deliveries of the last jobs (and retries of those a fault delayed) need a moment to land.
    const deliveredIds = () => new Set(receiver.requests.map((r) => { try { return JSON.parse(r.body).data?.jobId; } catch { return undefined; } }));
    const deliveriesStarted = Date.now();
    while (Date.now() - deliveriesStarted < 120_000 && accepted.some((a) => !deliveredIds().has(a.jobId))) {
      await new Promise((r) => setTimeout(r, 2_000));
    }

    const result = await checkInvariants({ prisma, storage, accepted, accounts, requests: receiver.requests });
    console.log(`\nchaos run: seed ${options.seed}, ${options.jobs} submits, ${accepted.length} accepted, ${refused} refused after retries`);
    console.log('faults injected:');
    for (const [what, n] of Object.entries(figures).sort()) console.log(`  ${what.padEnd(32)} ${n}`);
    console.log('checks:');
    for (const row of result.rows) console.log(`  ${row.ok ? 'ok  ' : 'FAIL'} ${row.check.padEnd(58)} ${row.figure}`);
    await prisma.$disconnect();
    process.exitCode = result.rows.every((r) => r.ok) ? 0 : 1;
  } finally {
    stopping = true;
    await supervisor.stopAll();
    await receiver.close();
    if (process.exitCode === 0) fs.rmSync(workDir, { recursive: true, force: true });
    else console.log(`logs kept in ${logDir}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
