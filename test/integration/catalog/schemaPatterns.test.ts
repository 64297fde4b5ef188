/**
 * A schema pattern cannot stall the API. A Cog model imported with `prompt` matching `^(a+)+$` is checked by a
 * linear-time engine: an estimate whose prompt almost matches (40 `a` and a `!`, which a backtracking engine takes
 * hours over) is answered at once, and GET /healthz answers throughout. A pattern the linear engine cannot run is
 * refused at import, and nothing is registered.
 *
 * The API runs in a process of its own, as it does in production: a blocked event loop there leaves this process free
 * to measure it, and to kill it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Prisma } from '@prisma/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CogImportError, importCogModel, inputSchemaFromCog, type CogImportOptions } from '../../../src/catalog/cogImport';
import { bumpCatalogRevision } from '../../../src/catalog/revision';
import { REPO_ROOT } from '../../../src/config';
import { createPrisma, type PrismaClient } from '../../../src/db/prisma';
import { freeLoopbackPort } from '../../../src/lib/freePort';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { post } from '../../support/api';
import { eventually } from '../../support/eventually';
import { builtArgs } from '../../support/build';

const SEGMENT = 'schema-pattern-tests';
const provider = `patterns-${randomBytes(4).toString('hex')}`;
const slug = `${provider}/repeater/text-to-image`;
/** Fails `^(a+)+$` only at its last character: a backtracking engine tries every split of the `a`s first. */
const ALMOST = `${'a'.repeat(40)}!`;
/** A generous bound for an answer that takes about a millisecond, and hours with backtracking. */
const PROMPT_ANSWER_MS = 2_000;

let prisma: PrismaClient;
let api: ChildProcess;
let apiUrl: string;
let account: TestAccount;

/** An `Input` schema as a Cog server serves it. */
function cogInput(promptPattern: string) {
  return { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string', pattern: promptPattern, 'x-order': 0 } } };
}

function importOptions(model: string): CogImportOptions {
  return {
    url: 'http://127.0.0.1:9',
    slug: `${provider}/${model}/text-to-image`,
    priceMicroCents: 10_000,
    slots: 1,
    versionId: 'v1',
    processingSeconds: 5,
    visibility: 'segment',
    segments: [SEGMENT],
  };
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

/** GET /healthz with a deadline: its status and how long it took, or `timeout`. */
async function health(): Promise<{ status: number | 'timeout'; ms: number }> {
  return timed(() =>
    fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(PROMPT_ANSWER_MS) }).then(
      (res) => res.status,
      () => 'timeout' as const,
    ),
  ).then(({ value, ms }) => ({ status: value, ms }));
}

beforeAll(async () => {
  prisma = createPrisma(process.env.DATABASE_URL!);
  await importCogModel(prisma, importOptions('repeater'), cogInput('^(a+)+$'));
  account = await createTestAccount(prisma, { segments: [SEGMENT] });

  const port = await freeLoopbackPort();
  apiUrl = `http://127.0.0.1:${port}`;
  api = spawn(process.execPath, builtArgs(path.join('src', 'api', 'server.ts')), {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: String(port), PUBLIC_BASE_URL: apiUrl, LOG_LEVEL: process.env.LOG_LEVEL ?? 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => ((await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.status === 200 ? true : undefined), 90_000, 250);
  // The first request loads the route modules and connects to PostgreSQL: timings start after it.
  const warmUp = await post(`${apiUrl}/v1/jobs/estimate`, account.apiKey, { model: slug, input: { prompt: 'a' } });
  expect(warmUp.status, JSON.stringify(warmUp.body)).toBe(200);
}, 120_000);

afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) {
    const exited = new Promise((resolve) => api.once('exit', resolve));
    api.kill('SIGKILL');
    await exited;
  }
  if (prisma) {
    await prisma.cogServer.deleteMany({ where: { providerId: provider } });
    await prisma.model.deleteMany({ where: { providerId: provider } });
    await prisma.provider.deleteMany({ where: { id: provider } });
    await prisma.$disconnect();
  }
});

describe('an input schema pattern with catastrophic backtracking', () => {
  it('is checked in linear time: the estimate is answered at once and /healthz answers meanwhile', async () => {
    const estimate = timed(() => post(`${apiUrl}/v1/jobs/estimate`, account.apiKey, { model: slug, input: { prompt: ALMOST } }));
    // A stalled API is killed after the test, failing this request then: that is not the failure to report.
    estimate.catch(() => undefined);
    let settled = false;
    void estimate.finally(() => (settled = true)).catch(() => undefined);
    // Probe while the estimate is in flight (a backtracking engine would hold the API's event loop), for 10 s at most,
    // and once after it.
    const probes: Awaited<ReturnType<typeof health>>[] = [];
    const started = performance.now();
    while ((!settled || probes.length < 3) && performance.now() - started < 10_000) {
      probes.push(await health());
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    probes.push(await health());
    const answered = settled ? await estimate : undefined;
    expect(probes.every((p) => p.status === 200), JSON.stringify(probes)).toBe(true);
    expect(answered, 'the estimate was not answered within 10 s').toBeDefined();
    expect(answered!.ms).toBeLessThan(PROMPT_ANSWER_MS);
    expect(answered!.value.status).toBe(400);
    expect(answered!.value.body.error).toMatchObject({ code: 'INVALID_INPUT', details: [{ path: 'prompt', message: 'must match pattern "^(a+)+$"' }] });
  }, 30_000);

  it('still matches what it should: a prompt of `a` only is priced', async () => {
    const res = await post(`${apiUrl}/v1/jobs/estimate`, account.apiKey, { model: slug, input: { prompt: 'a'.repeat(40) } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.baseCostMicroCents).toBe(10_000);
  });
});

describe('a pattern the linear-time engine cannot run', () => {
  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)a+$'],
    ['a lookbehind', '(?<!b)a'],
  ])('is refused at import (%s), and nothing is registered', async (_kind, pattern) => {
    const model = `refused-${randomBytes(3).toString('hex')}`;
    const imported = importCogModel(prisma, importOptions(model), cogInput(pattern));
    await expect(imported).rejects.toBeInstanceOf(CogImportError);
    await expect(imported).rejects.toThrow(/prompt|input schema/);
    await expect(imported).rejects.toThrow(/cannot be checked in linear time/);
    expect(await prisma.model.findUnique({ where: { slug: `${provider}/${model}/text-to-image` } })).toBeNull();
  });
});

describe('a model stored with such a pattern before patterns were checked at import', () => {
  it('is answered MODEL_NOT_FOUND naming the pattern, not a 500', async () => {
    const model = importOptions('stored');
    await importCogModel(prisma, model, cogInput('^a+$'));
    const stored = await prisma.model.findUniqueOrThrow({ where: { slug: model.slug } });
    const schema = inputSchemaFromCog(cogInput('^(?=a)a+$'));
    await prisma.modelVersion.updateMany({ where: { modelId: stored.id }, data: { inputSchema: schema as Prisma.InputJsonValue } });
    await bumpCatalogRevision(prisma);

    const res = await eventually(async () => {
      const answer = await post(`${apiUrl}/v1/jobs/estimate`, account.apiKey, { model: model.slug, input: { prompt: 'aaa' } });
      return answer.status === 200 ? undefined : answer;
    }, 15_000, 250);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('MODEL_NOT_FOUND');
    expect(res.body.error.message).toContain(`Model ${model.slug} is unavailable: its input schema's pattern "^(?=a)a+$" cannot be checked in linear time`);
  });
});
