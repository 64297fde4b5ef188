/** What the Cog tests share: a stack whose Cog servers call back to its API, and a model imported from a server. */
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { importCogModel } from '../../../src/catalog/cogImport';
import { REPO_ROOT, type TuningOverride } from '../../../src/config';
import { createCogTransport } from '../../../src/providers/cog/transport';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { workerProcessEnv, type TestStack } from '../../support/stack';
import { builtArgs } from '../../support/build';

/** Checks every second while a prediction runs; a prediction gone from its server fails after 2 s without its webhook. */
export const COG_TEST_TUNING = {
  upstreams: { pollIntervalMs: 300, safetyNetPollMs: 1000 },
  cog: { missingGraceMs: 2000, slotWaitMs: 30_000 },
} satisfies TuningOverride;

/**
 * The test models are seen only by accounts of this segment, so the catalog other tests (and the console's
 * screenshots) see stays the catalog files'.
 */
export const COG_TEST_SEGMENT = 'cog-tests';

/** A provider of its own for each test: `<prefix>-<hex>`. */
export function uniqueProvider(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

/** Registers examples/cog as `<provider>/painter/text-to-image` on these servers (the first one's schema). */
export async function importPainter(stack: TestStack, providerId: string, servers: string[], priceMicroCents = 20_000): Promise<string> {
  const slug = `${providerId}/painter/text-to-image`;
  const document = await createCogTransport({ timeoutMs: 10_000, allowedNetworks: stack.config.cog.allowedNetworks }).openapi(servers[0], AbortSignal.timeout(10_000));
  if (!document) throw new Error(`${servers[0]} serves no OpenAPI document`);
  for (const url of servers) {
    const visibility = { visibility: 'segment' as const, segments: [COG_TEST_SEGMENT] };
    await importCogModel(stack.prisma, { url, slug, priceMicroCents, slots: 1, versionId: 'v1', processingSeconds: 5, ...visibility }, document);
  }
  return slug;
}

/** A provider worker in a process of its own, for tests that SIGKILL it. */
export function startCogWorkerProcess(stack: TestStack, providerId: string): ChildProcess {
  return workerProcess(stack, ['--provider', providerId]);
}

/** The worker `npm run dev` runs for self-hosted models: every cog provider, those imported later included. */
export function startCogProvidersWorkerProcess(stack: TestStack): ChildProcess {
  return workerProcess(stack, ['--cog-providers']);
}

function workerProcess(stack: TestStack, args: string[]): ChildProcess {
  return spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), [...args]), {
    cwd: REPO_ROOT,
    env: { ...workerProcessEnv(stack.config, COG_TEST_TUNING), COG_CALLBACK_BASE_URL: stack.config.cog.callbackBaseUrl },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

/** A funded account that sees the test models. */
export function createCogTestAccount(stack: TestStack): Promise<TestAccount> {
  return createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n, segments: [COG_TEST_SEGMENT] });
}
