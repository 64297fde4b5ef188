/**
 * Jobs that stay open, for the memory figures: submitted to Lumi XL, whose provider no worker serves in the
 * benchmarks, so each stays pending with its workflow open (in the workflow worker's cache while it fits).
 */
import type { PrismaClient } from '../src/db/prisma';
import { createTestAccount, type TestAccount } from '../test/support/accounts';
import { runConcurrently } from './stats';
import { sleep, until } from './processes';

const MODEL = 'lumina/lumi-xl/text-to-image';
/** Lumi XL allows 60 submits a minute per account: 40 jobs each keeps every account under it for 1,000 jobs. */
const ACCOUNTS = 25;
const CONCURRENCY = 16;
const SUBMIT_ATTEMPTS = 5;

export interface OpenJob {
  jobId: string;
  account: TestAccount;
}

export interface JobOpener {
  accounts: TestAccount[];
  jobs: OpenJob[];
  /** Submits until `count` jobs are open in all; returns the wall time in ms. */
  openUpTo(count: number): Promise<number>;
  /** How many of the submitted jobs are still pending. */
  stillOpen(): Promise<number>;
}

/**
 * Funded accounts against the API at `apiUrl`; the first submit is retried until it is admitted, which is when the
 * workflow worker serving that API's task queue is up.
 */
export async function createJobOpener(prisma: PrismaClient, apiUrl: string): Promise<JobOpener> {
  const accounts: TestAccount[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createTestAccount(prisma, { creditsMicroCents: 1_000_000_000_000n, maxConcurrentJobs: 1_000 }));
  const jobs: OpenJob[] = [];
  let submitted = 0;
  const submit = async (i: number) => {
    const account = accounts[i % ACCOUNTS];
    for (let attempt = 1; ; attempt++) {
      const res = await fetch(`${apiUrl}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: MODEL, input: { prompt: `open job ${i}` } }),
      });
      const body = (await res.json()) as { jobId?: string };
      if (res.status === 201 && body.jobId) {
        jobs.push({ jobId: body.jobId, account });
        return;
      }
      // A loaded machine sheds submits (nothing charged): wait as told and submit again.
      if ((res.status === 503 || res.status === 429) && attempt < SUBMIT_ATTEMPTS) {
        await sleep(Math.min(10, Number(res.headers.get('retry-after')) || 1) * 1_000);
        continue;
      }
      throw new Error(`submit answered ${res.status}: ${JSON.stringify(body)}`);
    }
  };
  await until(() => submit(submitted).then(() => true, () => false), 120_000, 1_000);
  submitted = 1;
  return {
    accounts,
    jobs,
    async openUpTo(count) {
      const first = submitted;
      const more = Math.max(0, count - first);
      submitted = Math.max(submitted, count);
      return runConcurrently(more, CONCURRENCY, (i) => submit(first + i));
    },
    stillOpen: () => prisma.job.count({ where: { id: { in: jobs.map((j) => j.jobId) }, status: 'pending' } }),
  };
}
