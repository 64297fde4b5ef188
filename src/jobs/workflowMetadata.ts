import { firstRoute, type JobWorkflowInput } from '../contracts/workflows/job';
import { formatDollars } from '../shared/money';
import type { JobScheduling } from './scheduling';

/** The one line the Temporal UI lists a job workflow by: `pixelforge/forge-pro/text-to-image · $0.045`. */
export function jobWorkflowSummary(input: JobWorkflowInput): string {
  return `${input.modelSlug} · ${formatDollars(input.costMicroCents)}`;
}

/** The job's facts, as Markdown in the workflow's details (the UI renders it above the history). */
export function jobWorkflowDetails(input: JobWorkflowInput, scheduling?: JobScheduling): string {
  const first = firstRoute(input);
  return [
    `**Job** \`${input.jobId}\``,
    `**Model** \`${input.modelSlug}\` version \`${input.versionId}\` on provider \`${first.providerId}\``,
    `**Account** \`${input.accountId}\` (API key \`${input.apiKeyId}\`)`,
    `**Cost** ${formatDollars(input.costMicroCents)} (${input.costMicroCents} micro-cents), refunded in full if the job fails or is cancelled`,
    `**Request** \`${input.requestId}\``,
    ...(scheduling
      ? [`**Priority** ${scheduling.batchItem ? 'batch item, below every interactive job' : scheduling.priority}, fair-share weight ${scheduling.fairnessWeight}`]
      : []),
    ...(first.upstream ? [`**Upstream model** \`${first.upstream.mapping.model}\``] : []),
    ...(input.batchId ? [`**Batch** \`${input.batchId}\`, item \`${input.customId}\``] : []),
  ].join('\n\n');
}
