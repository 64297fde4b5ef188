/**
 * Erasure of a job's content (`job-erasure:<jobId>`) and of a whole account (`account-erasure:<accountId>`). Every
 * step is an idempotent activity, so an erasure interrupted anywhere (a worker killed, a deploy) finishes where it
 * stopped, and running one again changes nothing.
 */
import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { ErasureActivities } from '../activities/erasure';
import type {
  AccountErasureInput,
  AccountErasureResult,
  ErasureReason,
  JobErasureInput,
  JobErasureResult,
} from '../src/contracts/workflows/erasure';

const RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' } as const;

const steps = proxyActivities<ErasureActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: RETRY,
});

/** Deleting histories waits for the job's workflow to close (a moment after its row): retried briefly and often. */
const histories = proxyActivities<ErasureActivities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 1.5, maximumInterval: '5 seconds' },
});

/** Jobs erased at once by an account's erasure, and jobs per run before it continues as new. */
const ACCOUNT_BATCH = 5;
const JOBS_PER_RUN = 200;
/** How long an account's erasure waits for its unfinished jobs to end before it looks again. */
const UNFINISHED_JOBS_POLL = '5 seconds';

/**
 * The steps of one job's erasure: outputs and input files first, the Temporal histories, then the rows (the input
 * last, so a step interrupted earlier still finds the files it names), then the histories again, for any execution
 * that started between (a redelivery asked for meanwhile).
 */
async function eraseJobContent(jobId: string, reason: ErasureReason): Promise<string> {
  await steps.eraseJobOutputs({ jobId, reason });
  await steps.eraseJobInputFiles({ jobId });
  await histories.deleteJobWorkflowHistories({ jobId });
  const contentErasedAt = await steps.eraseJobRecords({ jobId });
  await histories.deleteJobWorkflowHistories({ jobId });
  return contentErasedAt;
}

export async function jobErasureWorkflow(input: JobErasureInput): Promise<JobErasureResult> {
  try {
    await steps.checkJobErasable({ jobId: input.jobId });
  } catch (err) {
    // The refusal (JOB_NOT_TERMINAL) is the workflow's own failure, so the API reads its type.
    if (err instanceof ActivityFailure && err.cause instanceof ApplicationFailure) throw err.cause;
    throw err;
  }
  return { jobId: input.jobId, contentErasedAt: await eraseJobContent(input.jobId, input.reason) };
}

export async function accountErasureWorkflow(input: AccountErasureInput): Promise<AccountErasureResult> {
  const { accountId } = input;
  let erased = input.erasedBefore ?? 0;
  let erasedThisRun = 0;
  await steps.closeAccountForErasure({ accountId });
  for (;;) {
    const next = await steps.jobsAwaitingErasure({ accountId, limit: ACCOUNT_BATCH });
    if (next.jobIds.length > 0) {
      await Promise.all(next.jobIds.map((jobId) => eraseJobContent(jobId, 'operator')));
      erased += next.jobIds.length;
      erasedThisRun += next.jobIds.length;
    } else if (next.unfinished > 0) {
      await sleep(UNFINISHED_JOBS_POLL);
    } else {
      break;
    }
    if (erasedThisRun >= JOBS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof accountErasureWorkflow>({ accountId, erasedBefore: erased });
    }
  }
  await steps.eraseAccountUploads({ accountId });
  await steps.finishAccountErasure({ accountId });
  return { accountId, jobsErased: erased };
}
