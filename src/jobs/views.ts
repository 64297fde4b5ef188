/** The job as the API shows it: list entries (the spec's six fields) and the full record with signed output URLs. */
import type { Job } from '@prisma/client';
import type { JobOutput, JobStatus } from '../shared/jobs';
import { toNumber } from '../shared/money';

export interface JobListEntry {
  jobId: string;
  status: JobStatus;
  progress: number;
  model: string;
  createdAt: string;
  /** When the job reached `completed`, `failed` or `cancelled`; null before. */
  completedAt: string | null;
}

export interface JobOutputView {
  url: string;
  contentType: string;
  sizeBytes: number;
  width?: number;
  height?: number;
  durationSeconds?: number;
}

export interface JobDetail extends JobListEntry {
  version: string;
  input: Record<string, unknown>;
  webhookUrl: string | null;
  costMicroCents: number;
  refundedMicroCents: number;
  estimatedCompletionTime: string;
  startedAt: string | null;
  error: { code: string; message: string } | null;
  outputs: JobOutputView[];
  /** When the output URLs stop working; null without outputs. */
  outputsExpireAt: string | null;
  /** The generation at the real upstream running this job; null for built-in models and before it was accepted. */
  upstream: { id: string; stage: string | null; queuePosition: number | null } | null;
}

export type SignOutputUrl = (key: string, contentType: string) => Promise<string>;

export function toListEntry(job: Job): JobListEntry {
  return {
    jobId: job.id,
    status: job.status,
    progress: job.progress,
    model: job.modelSlug,
    createdAt: job.createdAt.toISOString(),
    completedAt: job.completedAt?.toISOString() ?? null,
  };
}

export async function toDetail(job: Job, signUrl: SignOutputUrl, urlTtlSeconds: number, now = new Date()): Promise<JobDetail> {
  const stored = job.status === 'completed' ? ((job.outputs ?? []) as unknown as JobOutput[]) : [];
  const outputs = await Promise.all(
    stored.map(async ({ key, contentType, sizeBytes, width, height, durationSeconds }) => {
      const view: JobOutputView = { url: await signUrl(key, contentType), contentType, sizeBytes };
      if (width !== undefined) view.width = width;
      if (height !== undefined) view.height = height;
      if (durationSeconds !== undefined) view.durationSeconds = durationSeconds;
      return view;
    }),
  );
  return {
    ...toListEntry(job),
    version: job.versionId,
    input: job.input as Record<string, unknown>,
    webhookUrl: job.webhookUrl,
    costMicroCents: toNumber(job.costMicroCents),
    refundedMicroCents: toNumber(job.refundedMicroCents),
    estimatedCompletionTime: job.estimatedCompletionTime.toISOString(),
    startedAt: job.startedAt?.toISOString() ?? null,
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
    outputs,
    outputsExpireAt: outputs.length > 0 ? new Date(now.getTime() + urlTtlSeconds * 1000).toISOString() : null,
    upstream: job.upstreamId ? { id: job.upstreamId, stage: job.upstreamStage, queuePosition: job.upstreamQueuePosition } : null,
  };
}
