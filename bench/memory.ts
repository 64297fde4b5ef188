/**
 * Memory with many jobs open, each process measured on its own (children, VmRSS from /proc):
 *  - the workflow worker, idle and with 1,000 job workflows open (target: under 400 MB);
 *  - the API, idle, with 1,000 jobs in flight, and with 200 open event streams on top (target: under 250 MB), side by
 *    side: one API process with the V8 options every start of the API gives it (API_NODE_OPTIONS), one with Node's
 *    defaults, each taking the same load in turn; then their submit throughput (alternating parts at concurrency
 *    16) and submit latency at concurrency 1 (alternating request by request), which the options must not cost.
 * The jobs go to a provider no worker serves, so they stay pending: their workflows stay open and in the worker's
 * cache, which is the worst case the targets are about.
 */
import { createPrisma } from '../src/db/prisma';
import { loadConfig } from '../src/config';
import type { TestAccount } from '../test/support/accounts';
import { createJobOpener, type JobOpener } from './openJobs';
import { API_NODE_OPTIONS, cpuMs, mb, medianRss, RSS_SAMPLES, sleep, startApiProcess, startWorkflowWorkerProcess, stopProcess, type ApiProcess } from './processes';
import { openStream, type OpenStream } from './sseFanout';
import { fmt, printTable, summarize, timed, type Headline } from './stats';

const JOBS = 1_000;
const JOB_STREAMS = 150;
const ACCOUNT_STREAMS = 50;
const THROUGHPUT_SUBMITS = 400;
const LATENCY_ROUNDS = 100;
const MODEL = 'lumina/lumi-xl/text-to-image';

interface ApiSide {
  label: string;
  nodeOptions: string[];
  api: ApiProcess;
  opener: JobOpener;
  streams: OpenStream[];
  rss: { idle: number; inFlight: number; streams: number };
  submitMs: number;
  /** CPU time the API process spent over the throughput's submits. */
  submitCpuMs: number;
  latencies: number[];
}

export async function memoryBench(): Promise<Headline[]> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url);
  const worker = startWorkflowWorkerProcess();
  const sides: ApiSide[] = [];
  try {
    // BENCH_API_NODE_OPTIONS adds sides with other options (sets of options separated by `;`), e.g. to weigh a change
    // of API_NODE_OPTIONS.
    const candidates = (process.env.BENCH_API_NODE_OPTIONS ?? '').split(';').map((set) => set.split(' ').filter(Boolean)).filter((set) => set.length > 0);
    const variants: [string, string[]][] = [
      ['API_NODE_OPTIONS', API_NODE_OPTIONS],
      ...candidates.map((set, i): [string, string[]] => [`candidate${i + 1}`, set]),
      ["Node's defaults", []],
    ];
    for (const [label, nodeOptions] of variants) {
      const api = await startApiProcess({ nodeOptions: [...nodeOptions] });
      sides.push({ label: `${label} ${nodeOptions.join(' ')}`.trim(), nodeOptions: [...nodeOptions], api, opener: undefined as unknown as JobOpener, streams: [], rss: { idle: 0, inFlight: 0, streams: 0 }, submitMs: 0, submitCpuMs: 0, latencies: [] });
    }
    // The worker is ready once a submit is admitted; a few more warm each process.
    for (const side of sides) {
      side.opener = await createJobOpener(prisma, side.api.url);
      await side.opener.openUpTo(10);
    }
    await sleep(2_000);
    const workerIdle = await medianRss(worker);
    for (const side of sides) side.rss.idle = await medianRss(side.api.child);

    // Each API takes the same burst, then the streams, in turn, and is measured the same times after them.
    for (const side of sides) {
      await side.opener.openUpTo(JOBS);
      await sleep(3_000);
      side.rss.inFlight = await medianRss(side.api.child);
      const { jobs, accounts } = side.opener;
      for (const job of jobs.slice(0, JOB_STREAMS)) side.streams.push(await openStream(`${side.api.url}/v1/jobs/${job.jobId}/events`, job.account.apiKey, () => undefined));
      for (let i = 0; i < ACCOUNT_STREAMS; i++) side.streams.push(await openStream(`${side.api.url}/v1/jobs/events`, accounts[i % accounts.length].apiKey, () => undefined));
      await sleep(3_000);
      side.rss.streams = await medianRss(side.api.child);
    }
    const workerOpen = await medianRss(worker);

    // Submit throughput in alternating parts, then latency at c=1 request by request, streams still open; from fresh
    // accounts, so no submit meets the model's per-account rate limit.
    const measuring = new Map<ApiSide, JobOpener>();
    for (const side of sides) measuring.set(side, await createJobOpener(prisma, side.api.url));
    // In eight parts each, the order of the sides reversed in every other pair of parts (ABBA BAAB with two sides),
    // so a drift of the machine's load weighs on every side alike.
    const order = [false, true, true, false, true, false, false, true].flatMap((reversed) => (reversed ? [...sides].reverse() : sides));
    for (const [i, side] of order.entries()) {
      const done = order.slice(0, i + 1).filter((s) => s === side).length;
      const cpuBefore = cpuMs(side.api.child);
      side.submitMs += await measuring.get(side)!.openUpTo(1 + (done * THROUGHPUT_SUBMITS) / 8);
      side.submitCpuMs += cpuMs(side.api.child) - cpuBefore;
    }
    for (let round = 0; round < LATENCY_ROUNDS; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const accounts = measuring.get(side)!.accounts;
        const account = accounts[round % accounts.length];
        side.latencies.push(await submitOnce(side.api.url, account, round));
      }
    }

    const open = await Promise.all(sides.map((side) => side.opener.stillOpen()));
    console.log(`memory: ${open.join(' and ')} jobs open (pending) through the APIs, RSS median of ${RSS_SAMPLES} samples`);
    const row = (label: string, kb: number, base: number, note = '') =>
      console.log(`  ${label.padEnd(44)} ${mb(kb).padStart(9)} ${(kb === base ? '' : `+${mb(kb - base)}`).padStart(10)}   ${note}`.trimEnd());
    row('workflow worker, idle', workerIdle, workerIdle);
    row(`workflow worker, ${open.reduce((a, b) => a + b, 0)} job workflows open`, workerOpen, workerIdle, 'target < 400 MB');
    const tuned = sides[0]!;
    const plain = sides[sides.length - 1]!;
    const p50 = (side: ApiSide) => summarize(side.latencies).p50;
    const rate = (side: ApiSide) => THROUGHPUT_SUBMITS / (side.submitMs / 1_000);
    /** Each side's figure, then each other side's ratio to Node's defaults. */
    const line = (what: string, figure: (side: ApiSide) => number, show: (value: number) => string) => [
      what,
      ...sides.map((side) => show(figure(side))),
      ...sides.slice(0, -1).map((side) => `${(figure(side) / figure(plain)).toFixed(2)}x`),
    ];
    console.log('API, side by side, ratios to Node\'s defaults:');
    for (const side of sides) console.log(`  ${side.label}`);
    printTable([
      ['what', ...sides.map((side) => side.label.split(' ')[0]!), ...sides.slice(0, -1).map((side) => `${side.label.split(' ')[0]}/defaults`)],
      line('RSS, idle', (side) => side.rss.idle, mb),
      line(`RSS, ${JOBS} jobs in flight`, (side) => side.rss.inFlight, mb),
      line(`RSS, and ${tuned.streams.length} event streams (target < 250 MB)`, (side) => side.rss.streams, mb),
      line(`submit throughput, ${THROUGHPUT_SUBMITS} at c=16`, rate, (value) => `${value.toFixed(1)} jobs/s`),
      line('API CPU time per submit over those', (side) => side.submitCpuMs / THROUGHPUT_SUBMITS, fmt),
      line(`submit latency at c=1 (p50, ${LATENCY_ROUNDS} each)`, p50, fmt),
    ]);
    return [
      { target: `workflow worker RSS with ${open.reduce((a, b) => a + b, 0)} jobs open (under 400 MB)`, measured: mb(workerOpen).trim(), met: workerOpen < 400 * 1024 },
      { target: `API RSS with ${JOBS} jobs in flight and ${tuned.streams.length} streams (under 250 MB)`, measured: mb(tuned.rss.streams).trim(), met: tuned.rss.streams < 250 * 1024 },
      { target: "API submit throughput with its options vs Node's defaults (at least 0.95x)", measured: `${(rate(tuned) / rate(plain)).toFixed(2)}x`, met: rate(tuned) / rate(plain) >= 0.95 },
      { target: "API submit p50 at c=1 with its options vs Node's defaults (at most 1.05x)", measured: `${(p50(tuned) / p50(plain)).toFixed(2)}x`, met: p50(tuned) / p50(plain) <= 1.05 },
    ];
  } finally {
    for (const side of sides) for (const stream of side.streams) stream.close();
    for (const side of sides) await stopProcess(side.api.child);
    await stopProcess(worker);
    await prisma.$disconnect();
  }
}

async function submitOnce(apiUrl: string, account: TestAccount, round: number): Promise<number> {
  const [res, ms] = await timed(() =>
    fetch(`${apiUrl}/v1/jobs/submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: { prompt: `latency ${round}` } }),
    }),
  );
  const body = await res.text();
  if (res.status !== 201) throw new Error(`submit answered ${res.status}: ${body}`);
  return ms;
}
