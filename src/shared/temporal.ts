/** Task queue names and workflow id builders shared by the API, workers and workflows. */
export const DEFAULT_JOBS_TASK_QUEUE = 'jobs';

export function providerTaskQueue(providerId: string): string {
  return `provider.${providerId}`;
}

export function jobWorkflowId(jobId: string): string {
  return `job:${jobId}`;
}

export function uploadWorkflowId(fileId: string): string {
  return `upload:${fileId}`;
}

/** Custom search attributes the job workflow upserts on every status change. */
export const SEARCH_ATTRIBUTES = {
  JobId: 'Keyword',
  AccountId: 'Keyword',
  Model: 'Keyword',
  Provider: 'Keyword',
  JobStatus: 'Keyword',
} as const;
