import type { Genmedia, Job } from '@genmedia/client';
import { askAboutJob, Interrupted, withCtrlC, type InterruptOutcome } from './interrupt';
import { formatDollars } from '../../shared/money';
import { INTERRUPTED_EXIT_CODE } from './output';
import type { JobProgress } from './progress';

/** A followed job at its end, with the files its outputs were saved to. */
export interface FinishedJob {
  job: Job;
  files: string[];
}

export function describeFinished(result: FinishedJob | InterruptOutcome): string {
  if ('interrupted' in result) return '';
  const { job, files } = result;
  const seconds = job.startedAt && job.completedAt ? ` in ${((Date.parse(job.completedAt) - Date.parse(job.createdAt)) / 1000).toFixed(1)} s` : '';
  const lines = [`completed ${job.jobId}${seconds}: ${job.outputs.length} output(s), charged ${formatDollars(job.costMicroCents)}`];
  lines.push(...(files.length ? files.map((f) => `saved ${f}`) : job.outputs.map((o) => o.url)));
  return lines.join('\n');
}

/** Follows the job to its end with Ctrl-C handling; an interruption is a result (exit 130), not an error. */
export async function followInTerminal(
  client: Genmedia,
  work: (signal: AbortSignal) => Promise<FinishedJob>,
  jobId: () => string | null,
  progress: JobProgress,
): Promise<FinishedJob | InterruptOutcome> {
  try {
    return await withCtrlC(work, askAboutJob(client, jobId, progress));
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    process.exitCode = INTERRUPTED_EXIT_CODE;
    return err.outcome;
  } finally {
    progress.pause();
  }
}


