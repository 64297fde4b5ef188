/**
 * The official `replicate` Python client, unmodified, against the Replicate dialect under /replicate/v1
 * (test/interop/python/replicate_client.py), through an HTTPS front as in a deployment: replicate.run returns the
 * outputs (also of a job longer than the wait), a webhook with webhook_events_filter=["completed"] passes the
 * client's own validate_webhook (its body the prediction), cancelling a queued prediction refunds it in full, and
 * predictions.list pages both ways. The predictions are ordinary jobs: listed by GET /v1/jobs and charged once each
 * in the ledger, also when a create is retried with its Idempotency-Key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get } from '../../support/api';
import { ledgerJobIds, publicLedger } from '../../support/ledger';
import { startHttpsReceiver, type HttpsReceiver } from '../../support/httpsReceiver';
import { runPythonProgram } from '../../support/python';
import { predictionUrlsFor } from '../../../src/dialects/replicate/outputUrls';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { startTlsFront, type TlsFront } from '../../support/tlsFront';

const FORGE_PRO = 'pixelforge/forge-pro/text-to-image';
const REEL_2 = 'motionworks/reel-2/text-to-video';
/** No worker serves lumina in this stack: its jobs stay pending. */
const NEVER_STARTS = 'lumina/lumi-xl';
const WAIT_SECONDS = 4;

let front: TlsFront;
let receiver: HttpsReceiver;
let stack: TestStack;
let settings: { baseUrl: string; caPath: string };

beforeAll(async () => {
  front = await startTlsFront();
  receiver = await startHttpsReceiver();
  // forge-pro takes 1.5 s (30 s at this time scale), within the wait; reel-2 takes 12 s, past it.
  stack = await startTestStack({
    providers: ['pixelforge', 'motionworks'],
    webhookCa: receiver.caPem,
    env: { PUBLIC_BASE_URL: front.url },
    tuning: {
      providers: { timeScale: 0.05 },
      dialects: { replicateWaitSeconds: WAIT_SECONDS, replicatePageSize: 2 },
      webhooks: { retryScheduleSeconds: [0, 1, 1], timeoutMs: 2000 },
    },
  });
  front.setTarget(stack.url);
  settings = { baseUrl: `${front.url}/replicate`, caPath: front.caPath };
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
  await front?.close();
});

async function ledgerOf(accountId: string) {
  return stack.prisma.ledgerEntry.findMany({ where: { accountId, kind: { in: ['charge', 'refund'] } }, select: { jobId: true, kind: true, amountMicroCents: true } });
}

describe('the official replicate Python client against /replicate/v1', () => {
  it('runs a model by name and by name:version, and one whose job outlasts the wait, returning its outputs; each prediction is one job charged once', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000_000n });
    const result = await runPythonProgram('replicate_client.py', ['run'], { ...settings, apiKey: account.apiKey, model: 'pixelforge/forge-pro', slowModel: 'motionworks/reel-2' }, 120_000);

    const png = '89504e470d0a1a0a';
    // FileOutput.read() (with the key) and a plain GET with no credential both get the bytes.
    const plainGet = { status: 200, head: png };
    expect(result.byName).toEqual([
      { fileOutput: true, url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/replicate\/v1\/predictions\/.+\/outputs\/0\?token=\d+\.[\w-]+$/), head: png, plainGet },
    ]);
    expect(result.byVersion).toEqual([{ fileOutput: true, url: expect.any(String), head: png, plainGet }]);
    // The held create ended at the wait with `starting`, and the client polled the job to its end.
    expect(result.slowSeconds).toBeGreaterThan(WAIT_SECONDS);
    expect(result.slow).toHaveLength(1);
    expect(result.slow[0]).toMatchObject({ fileOutput: true, plainGet: { status: 200 } });
    expect(result.model).toMatchObject({ owner: 'pixelforge', name: 'forge-pro', visibility: 'public', runCount: 1 });
    expect(result.version).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{64}$/), cogVersion: 'genmedia', inputRequired: ['prompt'] });

    const page = await get(`${stack.url}/v1/jobs`, account.apiKey);
    const jobs = page.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => job.model).sort()).toEqual([REEL_2, FORGE_PRO, FORGE_PRO]);
    expect(jobs.every((job) => job.status === 'completed')).toBe(true);
    const ledger = await ledgerOf(account.accountId);
    expect(ledger.filter((entry) => entry.kind === 'charge').map((entry) => entry.jobId).sort()).toEqual(jobs.map((job) => job.jobId).sort());
    expect(ledger.filter((entry) => entry.kind === 'refund')).toEqual([]);
    // The account's own ledger shows the same: one charge per prediction, no refund.
    expect(await ledgerJobIds(stack.url, account.apiKey, 'charge')).toEqual(jobs.map((job) => job.jobId).sort());
    expect(await ledgerJobIds(stack.url, account.apiKey, 'refund')).toEqual([]);

    // Without its token, the output's path answers only a key of the job's account.
    const other = await createTestAccount(stack.prisma);
    const outputPath = new URL(result.byName[0].url).pathname;
    expect((await get(`${stack.url}${outputPath}`, other.apiKey)).status).toBe(404);
    expect((await get(`${stack.url}${outputPath}`, account.apiKey)).status).toBe(200);
  }, 180_000);

  it("delivers a completed webhook signed with the account's secret, which the client's validate_webhook accepts", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const webhookUrl = `${receiver.baseUrl}/hooks/${randomUUID()}`;
    const created = await runPythonProgram('replicate_client.py', ['create-webhook'], { ...settings, apiKey: account.apiKey, model: 'pixelforge/forge-pro', webhookUrl });
    expect(created).toMatchObject({ model: 'pixelforge/forge-pro', version: expect.stringMatching(/^[0-9a-f]{64}$/) });

    const path = new URL(webhookUrl).pathname;
    const delivery = await eventually(async () => receiver.requests.find((r) => r.url === path), 30_000, 50);
    const headers = Object.fromEntries(['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(delivery.headers[name])]));
    const validated = await runPythonProgram('replicate_client.py', ['validate-webhook'], { ...settings, apiKey: account.apiKey, delivery: { headers, body: delivery.body } });
    expect(validated).toEqual({ valid: true, changedBodyRefused: true, secretPrefix: 'whsec_', status: 'succeeded' });

    // Only the completion was asked for: no start event was sent.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests.filter((r) => r.url === path)).toHaveLength(1);
    // The body is the prediction, as GET /predictions/{id} answers it.
    const prediction = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(prediction).toMatchObject({ id: created.id, model: 'pixelforge/forge-pro', version: created.version, status: 'succeeded', error: null });
    expect(prediction.output).toEqual([expect.stringMatching(new RegExp(`^${front.url}/replicate/v1/predictions/${created.id}/outputs/0\\?token=`))]);
    // The webhook's output URL is fetched as it is, with no credential.
    const fetched = await fetch(`${stack.url}${new URL((prediction.output as string[])[0]!).pathname}${new URL((prediction.output as string[])[0]!).search}`);
    expect(fetched.status).toBe(200);
  }, 90_000);

  it('cancels a queued prediction, refunded in full', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const result = await runPythonProgram('replicate_client.py', ['cancel'], { ...settings, apiKey: account.apiKey, model: NEVER_STARTS });
    expect(result).toMatchObject({ created: 'starting', cancelled: 'canceled', read: 'canceled' });

    const ledger = await ledgerOf(account.accountId);
    const charge = ledger.find((entry) => entry.kind === 'charge');
    const refund = ledger.find((entry) => entry.kind === 'refund');
    expect(charge?.jobId).toBe(result.id);
    expect(refund).toMatchObject({ jobId: result.id, amountMicroCents: -charge!.amountMicroCents });
    const visible = (await publicLedger(stack.url, account.apiKey)).filter((entry) => entry.kind !== 'topup');
    expect(visible.map((entry) => [entry.kind, entry.jobId]).sort()).toEqual([['charge', result.id], ['refund', result.id]]);
    expect(visible.reduce((sum, entry) => sum + entry.amountMicroCents, 0)).toBe(0);
    const balance = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(balance.balanceMicroCents).toBe(1_000_000n);
  }, 60_000);

  it('honours Cancel-After: a prediction not started by then is canceled with DEADLINE_EXCEEDED, refunded in full', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const result = await runPythonProgram('replicate_client.py', ['deadline'], { ...settings, apiKey: account.apiKey, model: NEVER_STARTS, cancelAfter: '1500ms' });
    expect(result).toMatchObject({ created: 'starting', ended: 'canceled', error: expect.stringMatching(/^DEADLINE_EXCEEDED: /) });
    const job = await get(`${stack.url}/v1/jobs/${result.id}`, account.apiKey);
    // 1.5 s rounds up to the job's whole 2 s.
    expect(Date.parse(job.body.deadline) - Date.parse(job.body.createdAt)).toBeGreaterThanOrEqual(1500);
    expect(Date.parse(job.body.completedAt)).toBeGreaterThanOrEqual(Date.parse(job.body.deadline));
    expect(job.body).toMatchObject({ status: 'cancelled', refundedMicroCents: job.body.costMicroCents });
    const balance = await stack.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(balance.balanceMicroCents).toBe(1_000_000n);
  }, 60_000);

  it('pages predictions.list forward through next and back through previous, as absolute URLs', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const answer = await fetch(`${stack.url}/replicate/v1/models/${NEVER_STARTS}/predictions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ input: { prompt: `queued ${i}` } }),
      });
      expect(answer.status).toBe(201);
      ids.push(((await answer.json()) as { id: string }).id);
    }
    const newestFirst = [...ids].reverse();

    const result = await runPythonProgram('replicate_client.py', ['list'], { ...settings, apiKey: account.apiKey });
    expect(result.forward).toEqual([newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4)]);
    expect(result.backward).toEqual([newestFirst.slice(4), newestFirst.slice(2, 4), newestFirst.slice(0, 2)]);
    expect(result.firstPrevious).toBeNull();
    expect(result.lastNext).toBeNull();
    expect(result.nextUrl).toMatch(new RegExp(`^${front.url}/replicate/v1/predictions\\?cursor=`));
  }, 60_000);

  it('answers a create retried with its Idempotency-Key with the same prediction, charged once, and holds Prefer: wait=N at most N seconds', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const create = (body: object, headers: Record<string, string> = {}) =>
      fetch(`${stack.url}/replicate/v1/predictions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const key = { 'Idempotency-Key': randomUUID() };
    const body = { version: `${NEVER_STARTS}`, input: { prompt: 'once only' } };
    const first = await create(body, key);
    const second = await create(body, key);
    expect([first.status, second.status]).toEqual([201, 201]);
    const [a, b] = [(await first.json()) as { id: string }, (await second.json()) as { id: string }];
    expect(b.id).toBe(a.id);
    const conflict = await create({ ...body, input: { prompt: 'another body' } }, key);
    expect(conflict.status).toBe(409);
    expect(await conflict.json()).toMatchObject({ status: 409, code: 'IDEMPOTENCY_KEY_REUSED' });

    const startedAt = Date.now();
    const held = await create(body, { Prefer: 'wait=1' });
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - startedAt).toBeLessThan(WAIT_SECONDS * 1000);
    expect(await held.json()).toMatchObject({ status: 'starting' });

    const ledger = await ledgerOf(account.accountId);
    expect(ledger.map((entry) => entry.jobId).sort()).toEqual(
      (await stack.prisma.job.findMany({ where: { accountId: account.accountId }, select: { id: true } })).map((job) => job.id).sort(),
    );
    expect(ledger).toHaveLength(2);

    const unsupported = await create({ ...body, webhook_completed: 'https://example.com/hook' });
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', detail: expect.stringContaining('webhook_completed') });
  }, 60_000);

  it("raises the client's ReplicateError with RFC 7807 fields for an unknown model and a refused input, with our code in the body", async () => {
    const account = await createTestAccount(stack.prisma);
    const result = await runPythonProgram('replicate_client.py', ['errors'], { ...settings, apiKey: account.apiKey, model: 'pixelforge/forge-pro' });
    expect(result.unknownModel).toMatchObject({ class: 'ReplicateError', status: 404, title: 'Not Found', detail: expect.stringContaining('nobody/no-such-model') });
    expect(result.invalidInput).toMatchObject({ class: 'ReplicateError', status: 400, title: 'Bad Request', detail: expect.stringContaining('prompt') });

    const raw = await fetch(`${stack.url}/replicate/v1/models/nobody/no-such-model`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(raw.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await raw.json()).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, code: 'MODEL_NOT_FOUND' });
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
  }, 60_000);

  it('answers a request refused before the dialect (a NUL in the query) as an RFC 7807 problem', async () => {
    const account = await createTestAccount(stack.prisma);
    const res = await fetch(`${stack.url}/replicate/v1/predictions?cursor=%00`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({ type: 'about:blank', title: 'Bad Request', status: 400, code: 'VALIDATION_ERROR' });
  });

  it("serves an output URL to a plain GET with no credential while its token stands, and to a key of the job's account without one", async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const created = await fetch(`${stack.url}/replicate/v1/models/pixelforge/forge-pro/predictions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', prefer: 'wait' },
      body: JSON.stringify({ input: { prompt: 'a lighthouse for anyone with the link' } }),
    });
    const prediction = (await created.json()) as { id: string; status: string; output: string[] };
    expect(prediction.status).toBe('succeeded');
    const url = new URL(prediction.output[0]!);
    const local = (token: string | null) => `${stack.url}${url.pathname}${token === null ? '' : `?token=${encodeURIComponent(token)}`}`;
    const token = url.searchParams.get('token')!;
    const problemOf = async (res: Response) => ({ status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as { code: string; detail: string } });

    const plain = await fetch(local(token));
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await plain.arrayBuffer()).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    // The same URL with the client's own key, as FileOutput.read() sends it.
    expect((await get(local(token), account.apiKey)).status).toBe(200);

    // No token and no key; a changed token; another output's token: refused as RFC 7807 problems.
    for (const target of [local(null), local(`${token.slice(0, -2)}AA`), `${stack.url}${url.pathname.replace(/\/0$/, '/1')}?token=${encodeURIComponent(token)}`]) {
      const refused = await problemOf(await fetch(target));
      expect(refused).toMatchObject({ status: 401, type: expect.stringMatching(/^application\/problem\+json/), body: { code: 'UNAUTHORIZED' } });
    }
    // An expired token is refused alone, and the key of the job's account still opens the output.
    const expired = new URL(predictionUrlsFor(stack.config).outputUrls.urlFor({ id: prediction.id, accountId: account.accountId }, 0, new Date(Date.now() - 2 * 3600_000))).searchParams.get('token')!;
    const refusedExpired = await problemOf(await fetch(local(expired)));
    expect(refusedExpired).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED', detail: expect.stringContaining('expired') } });
    expect((await get(local(expired), account.apiKey)).status).toBe(200);

    // Once the key that submitted the job is revoked, its output URLs are refused with it.
    await stack.prisma.apiKey.updateMany({ where: { accountId: account.accountId }, data: { revokedAt: new Date() } });
    await eventually(async () => ((await fetch(local(token))).status === 401 ? true : undefined), 10_000, 100);
  }, 60_000);

  it("shows and runs only the models the key's allowedModels names", async () => {
    const account = await createTestAccount(stack.prisma, { keyModels: [FORGE_PRO] });
    const read = (path: string) => fetch(`${stack.url}/replicate/v1${path}`, { headers: { authorization: `Bearer ${account.apiKey}` } });
    const allowed = await read('/models/pixelforge/forge-pro');
    expect(allowed.status).toBe(200);
    const { latest_version: latest } = (await allowed.json()) as { latest_version: { id: string } };
    expect((await read(`/models/pixelforge/forge-pro/versions/${latest.id}`)).status).toBe(200);

    const other = await read('/models/motionworks/reel-2');
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ status: 404, code: 'MODEL_NOT_FOUND' });
    const unrestricted = await createTestAccount(stack.prisma);
    const reel = (await (await fetch(`${stack.url}/replicate/v1/models/motionworks/reel-2`, { headers: { authorization: `Bearer ${unrestricted.apiKey}` } })).json()) as { latest_version: { id: string } };
    expect((await read(`/models/motionworks/reel-2/versions/${reel.latest_version.id}`)).status).toBe(404);
    const refused = await fetch(`${stack.url}/replicate/v1/models/motionworks/reel-2/predictions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { prompt: 'not for this key' } }),
    });
    expect(refused.status).toBe(404);
    expect(await stack.prisma.job.count({ where: { accountId: account.accountId } })).toBe(0);
  });
});
