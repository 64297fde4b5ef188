/** Task queue names and workflow id builders shared by the API, workers and workflows. */
export const DEFAULT_JOBS_TASK_QUEUE = 'jobs';

export const DEFAULT_PROVIDER_TASK_QUEUE_PREFIX = 'provider.';

/** The activity task queue of a provider's workers: `provider.<id>` (tests use their own prefix). */
export function providerTaskQueue(providerId: string, prefix = DEFAULT_PROVIDER_TASK_QUEUE_PREFIX): string {
  return `${prefix}${providerId}`;
}

export function jobWorkflowId(jobId: string): string {
  return `job:${jobId}`;
}

export function uploadWorkflowId(fileId: string): string {
  return `upload:${fileId}`;
}

