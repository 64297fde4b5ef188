/**
 * Memory with many jobs open, each process measured on its own (children, VmRSS from /proc):
 *  - the workflow worker, idle and with 1,000 job workflows open (target: under 400 MB);
 *  - the API, idle, with those 1,000 jobs in flight, and with 200 open event streams on top (target: under 250 MB).
 * The jobs go to a provider no worker serves, so they stay pending: their workflows stay open and in the worker's
 * cache, which is the worst case the targets are about.
 */
import { createPrisma } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import { createJobOpener } from './openJobs';
import { mb, medianRss, RSS_SAMPLES, sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess } from './processes';
import { openStream, type OpenStream } from './sseFanout';
import type { Headline } from './stats';

const JOBS = 1_000;
const JOB_STREAMS = 150;
const ACCOUNT_STREAMS = 50;

export async function memoryBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const worker = startWorkflowWorkerProcess();
  const api = await startApiProcess();
  const streams: OpenStream[] = [];
  try {
    // The worker is ready once a submit is admitted; a few more warm both processes.
    const opener = await createJobOpener(prisma, api.url);
    const { accounts, jobs } = opener;
    await opener.openUpTo(10);
    await sleep(2_000);
    const workerIdle = await medianRss(worker);
    const apiIdle = await medianRss(api.child);

    await opener.openUpTo(JOBS);
    await sleep(3_000);
    const workerOpen = await medianRss(worker);
    const apiInFlight = await medianRss(api.child);

    for (const job of jobs.slice(0, JOB_STREAMS)) streams.push(await openStream(`${api.url}/v1/jobs/${job.jobId}/events`, job.account.apiKey, () => undefined));
    for (let i = 0; i < ACCOUNT_STREAMS; i++) streams.push(await openStream(`${api.url}/v1/jobs/events`, accounts[i % accounts.length].apiKey, () => undefined));
    await sleep(3_000);
    const apiStreams = await medianRss(api.child);

    const open = await opener.stillOpen();
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
