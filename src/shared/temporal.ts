/** The task queues of the provider workers; each workflow's own queue and id are in its contract (src/contracts/workflows). */
export const DEFAULT_PROVIDER_TASK_QUEUE_PREFIX = 'provider.';

/** The activity task queue of a provider's workers: `provider.<id>` (tests use their own prefix). */
export function providerTaskQueue(providerId: string, prefix = DEFAULT_PROVIDER_TASK_QUEUE_PREFIX): string {
  return `${prefix}${providerId}`;
}

