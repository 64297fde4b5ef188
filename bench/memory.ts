/**
 * Memory with many jobs open, each process measured on its own (children, VmRSS from /proc):
 *  - the workflow worker, idle and with 1,000 job workflows open (target: under 400 MB);
 *  - the API, idle, with those 1,000 jobs in flight, and with 200 open event streams on top (target: under 250 MB).
 * The jobs go to a provider no worker serves, so they stay pending: their workflows stay open and in the worker's
 * cache, which is the worst case the targets are about.
 */
import { createPrisma } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { mb, medianRss, RSS_SAMPLES, sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess, until } from './processes';
import { openStream, type OpenStream } from './sseFanout';
import { runConcurrently, type Headline } from './stats';

const MODEL = 'lumina/lumi-xl/text-to-image';
const JOBS = 1_000;
/** Lumi XL allows 60 submits a minute per account: 40 jobs each keeps every account under it. */
const ACCOUNTS = 25;
const CONCURRENCY = 16;
const JOB_STREAMS = 150;
const ACCOUNT_STREAMS = 50;

export async function memoryBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const worker = startWorkflowWorkerProcess();
  const api = await startApiProcess();
  const streams: OpenStream[] = [];
  try {
    const accounts: TestAccount[] = [];
    for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 }));
    const jobs: { jobId: string; account: TestAccount }[] = [];
    const submitJob = async (i: number) => {
      const account = accounts[i % ACCOUNTS];
      const res = await fetch(`${api.url}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, input: { prompt: `memory ${i}` } }),
      });
      const body = (await res.json()) as { jobId?: string };
      if (res.status !== 201 || !body.jobId) throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
      jobs.push({ jobId: body.jobId, account });
    };
    // The worker is ready once a submit is admitted; a few more warm both processes.
    await until(() => submitJob(0).then(() => true, () => false), 120_000, 1_000);
    for (let i = 1; i < 10; i++) await submitJob(i);
    await sleep(2_000);
    const workerIdle = await medianRss(worker);
    const apiIdle = await medianRss(api.child);

    await runConcurrently(JOBS - 10, CONCURRENCY, (i) => submitJob(10 + i));
    await sleep(3_000);
    const workerOpen = await medianRss(worker);
    const apiInFlight = await medianRss(api.child);

    for (const job of jobs.slice(0, JOB_STREAMS)) streams.push(await openStream(`${api.url}/v1/jobs/${job.jobId}/events`, job.account.apiKey, () => undefined));
    for (let i = 0; i < ACCOUNT_STREAMS; i++) streams.push(await openStream(`${api.url}/v1/jobs/events`, accounts[i % ACCOUNTS].apiKey, () => undefined));
    await sleep(3_000);
    const apiStreams = await medianRss(api.child);

    const open = await prisma.job.count({ where: { id: { in: jobs.map((j) => j.jobId) }, status: 'pending' } });
    console.log(`memory: ${jobs.length} jobs submitted, ${open} still open (pending), RSS median of ${RSS_SAMPLES} samples`);
    const row = (label: string, kb: number, base: number, note = '') =>
      console.log(`  ${label.padEnd(44)} ${mb(kb).padStart(9)} ${(kb === base ? '' : `+${mb(kb - base)}`).padStart(10)}   ${note}`.trimEnd());
    row('workflow worker, idle', workerIdle, workerIdle);
    row(`workflow worker, ${open} job workflows open`, workerOpen, workerIdle, `${((workerOpen - workerIdle) / open).toFixed(1)} KB each; target < 400 MB`);
    row('API, idle', apiIdle, apiIdle);
    row(`API, ${open} jobs in flight`, apiInFlight, apiIdle);
    row(`API, and ${streams.length} event streams open`, apiStreams, apiIdle, 'target < 250 MB');
    return [
      { target: `workflow worker RSS with ${open} jobs open (under 400 MB)`, measured: mb(workerOpen).trim(), met: workerOpen < 400 * 1024 },
      { target: `API RSS with ${open} jobs in flight and ${streams.length} streams (under 250 MB)`, measured: mb(apiStreams).trim(), met: apiStreams < 250 * 1024 },
    ];
  } finally {
    for (const stream of streams) stream.close();
    await stopProcess(api.child);
    await stopProcess(worker);
    await prisma.$disconnect();
  }
}
