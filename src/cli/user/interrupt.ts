import type { Genmedia } from '@genmedia/client';
import { canAsk, confirm } from './ask';
import { formatDollars } from '../../shared/money';
import type { JobProgress } from './progress';

/** What Ctrl-C ended: the job left running, or cancelled and refunded. */
export interface InterruptOutcome {
  interrupted: true;
  jobId: string | null;
  cancelled: boolean;
  refundedMicroCents?: number;
  status?: string;
}

export class Interrupted extends Error {
  constructor(readonly outcome: InterruptOutcome) {
    super('interrupted');
  }
}

/**
 * Runs `work` with Ctrl-C handled: `decide` says whether to stop (an outcome) or go on (null). While it asks, a
 * second Ctrl-C answers no. `work` is aborted with an Interrupted reason, which is what this rejects with.
 */
export async function withCtrlC<T>(work: (signal: AbortSignal) => Promise<T>, decide: () => Promise<InterruptOutcome | null>): Promise<T> {
  const controller = new AbortController();
  let deciding: Promise<void> | null = null;
  let outcome: InterruptOutcome | null = null;
  const onSigint = () => {
    deciding ??= decide()
      .then(
        (decided) => {
          outcome = decided;
          if (decided) controller.abort(new Interrupted(decided));
        },
        (err: unknown) => controller.abort(err),
      )
      .finally(() => (deciding = null));
  };
  process.on('SIGINT', onSigint);
  try {
    return await work(controller.signal);
  } catch (err) {
    // The job may end because of the decision (cancelled) before the decision is known: the decision explains it.
    if (deciding) await deciding;
    if (outcome) throw new Interrupted(outcome);
    if (controller.signal.aborted) throw controller.signal.reason;
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/**
 * Ctrl-C while following a job: a pending job can still be cancelled with a full refund, so ask; a job that has
 * started goes on without this terminal, and the user is told how to follow it again.
 */
export function askAboutJob(client: Genmedia, jobId: () => string | null, progress: JobProgress): () => Promise<InterruptOutcome | null> {
  return async () => {
    progress.pause();
    const id = jobId();
    if (id === null) {
      process.stderr.write('\ninterrupted before the job was accepted\n');
      return { interrupted: true, jobId: null, cancelled: false };
    }
    const job = await client.getJob(id);
    if (job.status === 'pending' && canAsk()) {
      if (await confirm(`\nJob ${id} has not started. Cancel it and refund ${formatDollars(job.costMicroCents)}?`)) {
        const cancelled = await client.cancelJob(id);
        process.stderr.write(`cancelled ${id}; refunded ${formatDollars(cancelled.refundedMicroCents)}\n`);
        return { interrupted: true, jobId: id, cancelled: true, refundedMicroCents: cancelled.refundedMicroCents, status: 'cancelled' };
      }
      progress.resume();
      return null;
    }
    if (job.status === 'completed' || job.status === 'failed' || job.status === 'cancelled') {
      progress.resume();
      return null;
    }
    process.stderr.write(`\njob ${id} is ${job.status} and goes on; follow it with: genmedia jobs watch ${id}\n`);
    return { interrupted: true, jobId: id, cancelled: false, status: job.status };
  };
}
