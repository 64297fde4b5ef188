/**
 * The production shape of Temporal (the server on PostgreSQL, as `npm run cluster` and the compose file run it),
 * killed in the middle of jobs and started again: every job still finishes, charged exactly once.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { get, imageJob, post } from '../jobs/helpers';

const load = createRequire(__filename);
const cluster = load('../../../scripts/lib/temporalCluster.js');
const { SEARCH_ATTRIBUTES, ensureSearchAttributes } = load('../../../scripts/lib/temporal.js');
const { capture } = load('../../../scripts/lib/proc.js');

interface ServerService {
  start(): void;
  stop(graceMs?: number): Promise<void>;
  tail(lines?: number): string;
}

const JOBS = 8;
const temporalCli = process.env.TEMPORAL_CLI_PATH ?? '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-temporal-server-'));
let server: ServerService;
let startServer: () => ServerService;
let address: string;
let stack: TestStack;

/** A free loopback port below 32768: Temporal stores membership ports as smallint, past the OS's ephemeral range. */
async function freeMembershipPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function healthy(timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (capture(temporalCli, ['operator', 'cluster', 'health', '--address', address]).status !== 0) {
    if (Date.now() > deadline) throw new Error(`the Temporal server did not become healthy:\n${server.tail(5).slice(0, 4000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  const binaries = JSON.parse(process.env.TEMPORAL_CLUSTER_BINARIES || 'null');
  if (!binaries) throw new Error('TEMPORAL_CLUSTER_BINARIES is not set (run through npm test, whose bootstrap builds the server)');
  const pg = new URL(process.env.DATABASE_URL!);
  const suffix = randomBytes(4).toString('hex');
  const databases = { main: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
  const credentials = { pgPort: Number(pg.port), user: decodeURIComponent(pg.username), password: decodeURIComponent(pg.password) };
  cluster.setupSchemas({ sqlTool: binaries.sqlTool, schemaDir: binaries.schemaDir, databases, ...credentials });

  const ports = {
    frontend: await freeLoopbackPort(),
    frontendHttp: await freeLoopbackPort(),
    history: await freeLoopbackPort(),
    matching: await freeLoopbackPort(),
    worker: await freeLoopbackPort(),
    membership: [await freeMembershipPort(), await freeMembershipPort(), await freeMembershipPort(), await freeMembershipPort()],
  };
  address = `127.0.0.1:${ports.frontend}`;
  startServer = () => {
    const service: ServerService = cluster.createServerService({
      binary: binaries.server,
      dir,
      logFile: path.join(dir, 'server.log'),
      databases,
      ports,
      ...credentials,
    });
    service.start();
    return service;
  };
  server = startServer();
  await healthy(90_000);
  cluster.ensureNamespace({ cli: temporalCli, address, namespace: 'default' });
  // The namespace reaches every service within a few seconds.
  await eventually(async () => {
    try {
      ensureSearchAttributes({ binary: temporalCli, address, namespace: 'default' });
      return true;
    } catch {
      return undefined;
    }
  }, 60_000, 1000);

  // 30 s nominal × 0.1: each job renders for about 3 s.
  stack = await startTestStack({ providers: ['pixelforge'], env: { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default', PROVIDER_TIME_SCALE: '0.1' } });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('the Temporal server on PostgreSQL', () => {
  it('has the search attributes genmedia needs', () => {
    const list = capture(temporalCli, ['operator', 'search-attribute', 'list', '--namespace', 'default', '--output', 'json', '--address', address]);
    const custom = JSON.parse(list.stdout).customAttributes ?? {};
    for (const name of SEARCH_ATTRIBUTES) expect(custom[name], name).toBe('INDEXED_VALUE_TYPE_KEYWORD');
  });

  it('killed in the middle of jobs and started again: every job finishes, charged exactly once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 100_000_000n, maxConcurrentJobs: JOBS });
    const submitted: { jobId: string; costMicroCents: number }[] = [];
    for (let i = 0; i < JOBS; i++) {
      const res = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, imageJob({ prompt: `restart ${i}` }));
      expect(res.status).toBe(201);
      submitted.push(res.body);
    }
    // Some jobs are rendering when the server goes away.
    await eventually(async () => ((await stack.prisma.job.count({ where: { accountId: account.accountId, status: 'processing' } })) > 0 ? true : undefined), 30_000, 100);
    await server.stop(0);
    await new Promise((r) => setTimeout(r, 3000));
    server = startServer();
    await healthy(90_000);

    const finals = await eventually(
      async () => {
        const jobs = await Promise.all(submitted.map(async ({ jobId }) => (await get(`${stack.url}/v1/jobs/${jobId}`, account.apiKey)).body));
        return jobs.every((job) => ['completed', 'failed', 'cancelled'].includes(job.status)) ? jobs : undefined;
      },
      180_000,
      1000,
    );
    expect(finals.map((job) => job.status)).toEqual(Array(JOBS).fill('completed'));

    const ledger = await stack.prisma.ledgerEntry.findMany({ where: { accountId: account.accountId }, orderBy: { id: 'asc' } });
    const charges = ledger.filter((e) => e.kind === 'charge');
    expect(charges.map((e) => e.jobId).sort()).toEqual(submitted.map((s) => s.jobId).sort());
    expect(ledger.filter((e) => e.kind === 'refund')).toEqual([]);
    const total = submitted.reduce((sum, s) => sum + s.costMicroCents, 0);
    const balance = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(Number(balance.balanceMicroCents)).toBe(100_000_000 - total);
  }, 300_000);
});
