/**
 * The upstream part of the job contract, shared by the API (submit), the job workflow and the upstream
 * activities. Pure module: the workflow bundle imports it.
 */
import { backoffFrom, type JobError, type JobOutput, type RetryBackoff } from './jobs';

/**
 * How a version reaches a hosted upstream: the `upstream` block of a catalog route (docs/providers.md), the upstream's
 * model, operation, input mapping and output paths; a self-hosted Cog route carries one too, its server as `model`.
 * Not a route itself (docs/glossary.md): the route is the provider with its price and order; this is what one route
 * sends its provider.
 */
export interface UpstreamMapping {
  /**
   * The upstream's model or endpoint id: fal `fal-ai/flux/dev`; Replicate `owner/name` (official model)
   * or `owner/name:version`; Runway `gen4_turbo`; Google `veo-3.0-fast-generate-001`; OpenAI `gpt-image-2`.
   */
  model: string;
  /**
   * Which upstream operation, where the upstream has several: Runway `image_to_video` | `text_to_image`;
   * Google `generateContent` | `predictLongRunning`; OpenAI `images.generate`.
   */
  operation?: string;
  /** Our validated input → the upstream's input (src/providers/inputMapping.ts). */
  input: Record<string, unknown>;
  /** Paths into the result where the output files are, e.g. `images[].url`, `video.url`, `output[]`. */
  outputs: string[];
  /** Content type of outputs that come as bare base64 (OpenAI `b64_json`); URLs and data: URIs carry their own. */
  outputContentType?: string;
}

/** The upstream part of a route plan: what the job workflow is told at submit about a route on a hosted upstream. */
export interface UpstreamPlan {
  /** The route's upstream mapping. */
  mapping: UpstreamMapping;
  /** The longest the generation may take, from the moment it is submitted, before it is cancelled and refunded. */
  timeoutSeconds: number;
  /** How a failed status check of the generation is retried; absent (histories before it): UPSTREAM_CHECK_RETRY. */
  checkRetry?: CheckRetry;
}

/**
 * The waits between the attempts of a status check that fails: the first `initialIntervalMs`, doubling up to
 * `maximumIntervalMs`, over UPSTREAM_CHECK_ATTEMPTS attempts; then the attempt fails and the job may fail over.
 */
export type CheckRetry = RetryBackoff;

/** A check that fails is tried this many times in all. */
export const UPSTREAM_CHECK_ATTEMPTS = 10;

/** 2 s doubling to 1 min: about 5 minutes over the attempts, long enough to ride out an upstream's outage. */
export const UPSTREAM_CHECK_RETRY: CheckRetry = { initialIntervalMs: 2_000, maximumIntervalMs: 60_000 };

/** The check retry of a first wait of `initialIntervalMs`: the default's shape (the longest wait 30 times the first). */
export function checkRetryFrom(initialIntervalMs: number): CheckRetry {
  return backoffFrom(initialIntervalMs, UPSTREAM_CHECK_RETRY);
}

/**
 * Where a generation stands, as the generation activities report it to the workflow.
 * `waiting`: check again after `nextCheckMs` (sooner when a callback arrives); `running` once the provider says
 * the generation started (it may still be queued before).
 * `completed`: the outputs are stored; `upstreamId` is absent for providers that generate in the worker.
 * `cancelled`: a cancel won the race for the job before anything reached the provider.
 */
export type GenerationProgress =
  | { outcome: 'waiting'; upstreamId: string; nextCheckMs: number; running?: boolean }
  | { outcome: 'completed'; upstreamId?: string; outputs: JobOutput[] }
  | { outcome: 'failed'; upstreamId?: string; error: JobError }
  | { outcome: 'cancelled' };

/** One try of a job on one route. */
export interface AttemptRef {
  /** `<jobId>.<number>` */
  id: string;
  number: number;
  /** Why it runs: the route the job started on, one after a failure, or one beside a slow first attempt. */
  role?: AttemptRole;
}

export type AttemptRole = 'first' | 'failover' | 'hedge';

/** Starts a job's generation on its provider: the job, its input and, for an upstream, the route. */
export interface GenerationStart {
  jobId: string;
  attempt: AttemptRef;
  providerId: string;
  modelSlug: string;
  capability: string;
  versionId: string;
  input: Record<string, unknown>;
  /** Present when the provider is a real upstream. */
  mapping?: UpstreamMapping;
  expectedProcessingSeconds: number;
  /** ISO 8601: after it the generation is of no use (Replicate `Cancel-After`). */
  deadline: string;
}

export interface GenerationCheck {
  jobId: string;
  attemptId: string;
  providerId: string;
  modelSlug: string;
  mapping?: UpstreamMapping;
  upstreamId: string;
  expectedProcessingSeconds: number;
}

/**
 * An upstream mapping where a run may still carry it under its earlier name: `route` was the name of the mapping in
 * an upstream plan (`UpstreamPlan`) and in the generation activities' inputs (`GenerationStart`, `GenerationCheck`,
 * the cancel), so the histories of runs started before the rename, and the activities such a run schedules, carry
 * `route` (docs/workflow-versioning.md). Where a workflow reads a plan and where an activity reads its input, the
 * mapping is taken from either name, the new one first.
 */
export interface RecordedMapping {
  mapping?: UpstreamMapping;
  /** The earlier name of `mapping`. */
  route?: UpstreamMapping;
}

/** The upstream mapping of a plan or an activity input, under its name or its earlier one; undefined when neither. */
export function mappingOf(recorded: RecordedMapping | undefined): UpstreamMapping | undefined {
  return recorded?.mapping ?? recorded?.route;
}

/** An activity's input with its mapping under `mapping` whichever name it came under, and no `route`. */
export function withMapping<T extends RecordedMapping>(input: T): Omit<T, 'route'> {
  const { route: _earlier, ...rest } = input;
  const mapping = mappingOf(input);
  return mapping === undefined ? rest : { ...rest, mapping };
}
