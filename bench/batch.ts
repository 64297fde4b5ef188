/**
 * Batch admission against single submits, side by side in one run, through one API process and one workflow worker
 * process (children, so their RSS is theirs alone):
 *  - singles: BATCH_ITEMS submits over HTTP at concurrency 16, timed to the last `201`;
 *  - batch: one JSONL file of BATCH_ITEMS lines uploaded through the presigned flow, timed from `POST /v1/batches` to
 *    every item admitted (charged, its job started: `counts.running` reaches the item count).
 * Every job goes to Lumi XL, whose provider no worker serves here, so admission alone is measured and the jobs stay
 * pending. The API's and the worker's RSS are read before the batch, every second during it and after it; the batch
 * workflow's history is read for every run of its continue-as-new chain.
 */
import { Connection, Client } from '@temporalio/client';
import { loadConfig } from '../src/config';
import { createPrisma } from '../src/db/prisma';
import { batchWorkflowId } from '../src/contracts/workflows/batch';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { mb, rssKb, sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { headline, printTable, runConcurrently, type Headline } from './stats';

const BATCH_ITEMS = Number(process.env.BENCH_BATCH_ITEMS ?? 10_000);
const CONCURRENCY = 16;
const MODEL = 'lumina/lumi-xl/text-to-image';
/** Lumi XL takes 60 submits a minute per account: the singles spread over enough accounts to stay under it. */
const SUBMITS_PER_ACCOUNT = 40;

interface RssTrace {
  before: number;
  peak: number;
  after: number;
}

export async function batchBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const connection = await Connection.connect({ address: config.temporal.address });
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  const worker = startWorkflowWorkerProcess();
  const api = await startApiProcess();
  try {
    const funded = { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 4 * BATCH_ITEMS };
    const singleAccounts: TestAccount[] = [];
    for (let i = 0; i < Math.ceil(BATCH_ITEMS / SUBMITS_PER_ACCOUNT); i++) singleAccounts.push(await createTestAccount(prisma, funded));
    const batchAccount = await createTestAccount(prisma, funded);
    await until(async () => (await submit(api.url, singleAccounts[0]!, -1)) === 201, 120_000, 1_000);

    const singlesMs = await runConcurrently(BATCH_ITEMS, CONCURRENCY, async (i) => {
      const status = await submit(api.url, singleAccounts[i % singleAccounts.length]!, i);
      if (status !== 201) throw new Error(`single submit ${i} answered ${status}`);
    });

    const fileId = await uploadLines(api.url, batchAccount.apiKey, BATCH_ITEMS);
    await sleep(3_000);
    const apiRss: RssTrace = { before: rssKb(api.child), peak: 0, after: 0 };
    const workerRss: RssTrace = { before: rssKb(worker), peak: 0, after: 0 };
    const startedAt = performance.now();
    const created = await request(api.url, batchAccount.apiKey, 'POST', '/v1/batches', { fileId });
    if (created.status !== 201 && created.status !== 202) throw new Error(`POST /v1/batches answered ${created.status}: ${JSON.stringify(created.body)}`);
    const batchId = (created.body as { batchId: string }).batchId;
    let lastSample = 0;
    await until(
      async () => {
        if (performance.now() - lastSample >= 1_000) {
          lastSample = performance.now();
          apiRss.peak = Math.max(apiRss.peak, rssKb(api.child));
          workerRss.peak = Math.max(workerRss.peak, rssKb(worker));
        }
        const batch = (await request(api.url, batchAccount.apiKey, 'GET', `/v1/batches/${batchId}`)).body as { counts: Record<string, number> };
        if (batch.counts.failed) throw new Error(`${batch.counts.failed} batch items failed`);
        return batch.counts.running === BATCH_ITEMS;
      },
      30 * 60_000,
      200,
    );
    const batchMs = performance.now() - startedAt;
    await sleep(3_000);
    apiRss.after = rssKb(api.child);
    workerRss.after = rssKb(worker);
    apiRss.peak = Math.max(apiRss.peak, apiRss.after);
    workerRss.peak = Math.max(workerRss.peak, workerRss.after);
    const runs = await batchRuns(temporal, batchWorkflowId(batchId));

    const rate = (ms: number) => `${(BATCH_ITEMS / (ms / 1_000)).toFixed(1)} jobs/s`;
    console.log(`batch: ${BATCH_ITEMS} jobs admitted, one batch file against single submits at c=${CONCURRENCY}, through one API and one workflow worker`);
    printTable([
      ['what', 'wall time', 'rate'],
      [`${BATCH_ITEMS} single submits, to the last 201`, `${(singlesMs / 1_000).toFixed(1)} s`, rate(singlesMs)],
      [`one ${BATCH_ITEMS}-line batch, to every item admitted`, `${(batchMs / 1_000).toFixed(1)} s`, rate(batchMs)],
      ['batch admission against single submits', `${(singlesMs / batchMs).toFixed(2)}x faster`, ''],
    ]);
    console.log('RSS while the batch is admitted (sampled every second):');
    printTable([
      ['process', 'before', 'peak', 'after', 'peak - before'],
      ...([['API', apiRss], ['workflow worker', workerRss]] as const).map(([name, t]) => [name, mb(t.before), mb(t.peak), mb(t.after), mb(t.peak - t.before)]),
    ]);
    console.log(`batch workflow history, ${runs.length} run(s) of its continue-as-new chain (rounds per run ${config.batches.roundsPerRun}):`);
    printTable([['run', 'events', 'size'], ...runs.map((run, i) => [String(i + 1), String(run.historyLength), run.historySize === undefined ? '?' : `${(run.historySize / 1024).toFixed(1)} KB`])]);
    const largestRun = Math.max(...runs.map((run) => run.historySize ?? 0));
    return [
      headline(`batch admission of ${BATCH_ITEMS} items against as many single submits at c=${CONCURRENCY}`, singlesMs / batchMs, 1.5, 'at least'),
      { target: 'API RSS during the batch within 50 MB of before', measured: `+${mb(apiRss.peak - apiRss.before)}`, met: apiRss.peak - apiRss.before <= 50 * 1024 },
      { target: 'workflow worker RSS during the batch within 50 MB of before', measured: `+${mb(workerRss.peak - workerRss.before)}`, met: workerRss.peak - workerRss.before <= 50 * 1024 },
      { target: 'batch workflow history per run bounded (largest run)', measured: `${(largestRun / 1024).toFixed(1)} KB`, met: largestRun < 4 * 1024 * 1024 },
    ];
  } finally {
    await stopProcess(api.child);
    await stopProcess(worker);
    await connection.close();
    await prisma.$disconnect();
  }
}

async function request(apiUrl: string, apiKey: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

async function submit(apiUrl: string, account: TestAccount, i: number): Promise<number> {
  return (await request(apiUrl, account.apiKey, 'POST', '/v1/jobs/submit', { model: MODEL, input: { prompt: `single ${i}` } })).status;
}

/** The batch file through the presigned flow, as a client uploads it; its file id. */
async function uploadLines(apiUrl: string, apiKey: string, count: number): Promise<string> {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify({ customId: `item-${i}`, model: MODEL, input: { prompt: `batch item ${i}` } })).join('\n');
  const presign = await request(apiUrl, apiKey, 'POST', '/v1/uploads/presign', { filename: 'bench.jsonl', contentType: 'application/jsonl' });
  const { uploadUrl, fileId } = (presign.body as { data: { uploadUrl: string; fileId: string } }).data;
  const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'application/jsonl' }, body: lines });
  if (!put.ok) throw new Error(`the batch file upload answered ${put.status}`);
  return fileId;
}

async function batchRuns(temporal: Client, workflowId: string): Promise<{ historyLength: number; historySize?: number }[]> {
  const runs: { historyLength: number; historySize?: number; startTime: Date }[] = [];
  for await (const run of temporal.workflow.list({ query: `WorkflowId = '${workflowId}'` })) {
    // Visibility has a closed run's final figures; an open run's come from describing it.
    runs.push(run.status.name === 'RUNNING' ? await temporal.workflow.getHandle(workflowId, run.runId).describe() : run);
  }
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
}
