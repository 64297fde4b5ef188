import { z } from './zod';
import { JOB_STATUSES } from '../../shared/jobs';
import { WEBHOOK_EVENT_TYPES } from '../../shared/webhooks';
import { JOB_DELIVERY_STATUSES } from '../../shared/outputDelivery';
import { JOB_PRIORITIES } from '../../shared/jobPriority';
import { OUTPUTS_DELETED_REASONS } from '../../shared/retention';
import { DEADLINE_POLICIES, MAX_DEADLINE_SECONDS } from '../../shared/deadlines';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const DEFAULT_EVENT_PAGE_SIZE = 100;
const MAX_EVENT_PAGE_SIZE = 1000;

const modelSlug = z
  .string({ error: 'model is required and must be a string' })
  .min(1, 'model must not be empty')
  .max(200)
  .openapi({ description: 'Model slug `<provider>/<model>` or `<provider>/<model>/<capability>`', example: 'pixelforge/forge-pro/text-to-image' });

const version = z
  .string({ error: 'version must be a string' })
  .min(1)
  .max(100)
  .optional()
  .openapi({ description: 'Model version; omitted → the newest active version', example: 'v1' });

const inputObject = z.record(z.string(), z.unknown());

// Unknown top-level fields are refused, so a misspelt `webhookUrl` cannot be silently ignored.
export const SubmitJobRequestSchema = z
  .strictObject({
    model: modelSlug,
    version,
    input: inputObject.openapi({ description: "Model-specific parameters, validated against the version's input JSON Schema" }),
    webhookUrl: z
      .string({ error: 'webhookUrl must be a string' })
      .optional()
      .openapi({ description: 'https:// URL notified when the job completes, fails or is cancelled', example: 'https://example.com/hooks/genmedia' }),
    webhookEvents: z
      .array(z.enum(WEBHOOK_EVENT_TYPES, { error: `webhookEvents entries must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` }))
      .min(1, 'webhookEvents must name at least one event')
      .max(WEBHOOK_EVENT_TYPES.length)
      .optional()
      .openapi({
        description:
          'Which events are sent to webhookUrl (default: job.completed, job.failed, job.cancelled). `job.processing` when a worker starts the job; ' +
          '`job.progress` while it runs, at most one per webhooks.progressIntervalSeconds (5 s by default); `job.outputs_deleted` when the ' +
          'outputs are deleted from storage (their retention passed, or the job or account was erased); `job.delivered` when the copy of the ' +
          "outputs to the account's own bucket is settled, delivered or given up (see `delivery`). Requires webhookUrl.",
        example: ['job.processing', 'job.progress', 'job.completed', 'job.failed'],
      }),
    providers: z
      .array(z.string({ error: 'providers entries must be provider ids' }).min(1).max(100))
      .min(1, 'providers must name at least one provider')
      .max(20)
      .optional()
      .openapi({
        description:
          "Run only on these of the version's routes (provider ids, as `GET /v1/models/{modelId}` lists them), in the version's " +
          'order. Narrows the routes, never widens them; a job with one provider left does not fail over.',
        example: ['replicate'],
      }),
    priority: z
      .enum(JOB_PRIORITIES, { error: `priority must be one of ${JOB_PRIORITIES.join(', ')}` })
      .optional()
      .openapi({
        description:
          "Where the job waits when the provider is busy: `high` jobs start before `normal` ones, `normal` before `low`. Default: the account plan's " +
          "priority. A lower one is allowed (for batch work that may wait); a higher one is refused with VALIDATION_ERROR, whose details give the plan's " +
          'priority (`planPriority`) and the values allowed (`allowed`).',
        example: 'low',
      }),
    retentionSeconds: z
      .number({ error: 'retentionSeconds must be a whole number of seconds' })
      .int('retentionSeconds must be a whole number of seconds')
      .optional()
      .openapi({
        description:
          "How long the job's outputs are kept after it completes, in seconds: shorter than the account's retention (default: the account's, " +
          '`outputRetentionSeconds` of `GET /v1/account`), and one hour at least (outputs.retentionMinSeconds). Out of that range: ' +
          'VALIDATION_ERROR, whose details give the range (`minimum`, `maximum`) and the account\'s retention (`accountRetentionSeconds`, null for forever).',
        example: 86400,
      }),
    deadline: z.iso
      .datetime({ offset: true, error: 'deadline must be an ISO 8601 instant, e.g. 2026-12-03T18:00:00Z' })
      .optional()
      .openapi({
        description:
          'When the job must be done by. A job that has not started by then is cancelled with `error.code` DEADLINE_EXCEEDED and refunded in full; ' +
          'one still running is stopped at its provider (what that costs, by kind of provider: docs/eta.md). In the future, at most a week ahead. ' +
          'Not with cancelAfter.',
        example: '2026-12-03T18:00:00Z',
      }),
    cancelAfter: z
      .number({ error: 'cancelAfter must be a whole number of seconds' })
      .int('cancelAfter must be a whole number of seconds')
      .min(1, 'cancelAfter must be at least 1 second')
      .max(MAX_DEADLINE_SECONDS, `cancelAfter must be at most ${MAX_DEADLINE_SECONDS} seconds (a week)`)
      .optional()
      .openapi({ description: 'The deadline as seconds from the submit: the same as `deadline` at that instant. Not with deadline.', example: 300 }),
    deadlinePolicy: z
      .enum(DEADLINE_POLICIES, { error: `deadlinePolicy must be one of ${DEADLINE_POLICIES.join(', ')}` })
      .optional()
      .openapi({
        description:
          '`cancel` (the default): the job is admitted whatever its estimate, and ends at its deadline. `reject_if_late`: the submit is refused at once ' +
          'with DEADLINE_UNREACHABLE, nothing charged, when the estimate\'s 90th percentile is already past the deadline; its details carry the estimate. ' +
          'Needs deadline or cancelAfter.',
        example: 'reject_if_late',
      }),
  })
  .refine((body) => body.webhookEvents === undefined || body.webhookUrl !== undefined, {
    message: 'webhookEvents needs a webhookUrl',
    path: ['webhookEvents'],
  })
  .refine((body) => body.deadline === undefined || body.cancelAfter === undefined, {
    message: 'give deadline or cancelAfter, not both',
    path: ['cancelAfter'],
  })
  .refine((body) => body.deadlinePolicy === undefined || body.deadline !== undefined || body.cancelAfter !== undefined, {
    message: 'deadlinePolicy needs a deadline or cancelAfter',
    path: ['deadlinePolicy'],
  })
  .openapi('SubmitJobRequest');

const eventsUrl = z.string().url().openapi({
  description:
    "Signed, read-only URL of this job's events (`GET /v1/jobs/{jobId}/events?token=…`) that a browser page opens with " +
    '`new EventSource(url)` without an API key; valid for jobs.eventsUrlTtlSeconds (an hour by default), and only while the ' +
    'key that submitted the job and its account may still be used: once that key is revoked or expired, or the account ' +
    'suspended, it is refused (401, 403) and its open streams end within seconds. A stream opened with it ends when it ' +
    'expires: read the job again for a fresh one (with `since` to resume)',
});

/**
 * A job's estimate beside `estimatedCompletionTime` (its median), as docs/eta.md explains it: null on a job that is
 * no longer waiting or running, and on jobs admitted before estimates had these parts.
 */
const jobEstimateFields = {
  estimatedCompletionTimeP90: z.string().nullable().openapi({
    format: 'date-time',
    description: 'The 90th percentile of the completion: nine jobs in ten are done by then, counted from where the job stands in its line',
  }),
  estimatedStartTime: z.string().nullable().openapi({ format: 'date-time', description: 'When the job is expected to take a slot of its provider (median)' }),
  placeInLine: z.number().int().nullable().openapi({
    description: "The job's place in genmedia's line for its provider: 1 is the next to start; 0 once it runs. Not the upstream's own queue position (`upstream.queuePosition`)",
  }),
};

export const SubmitJobResponseSchema = z
  .object({
    jobId: z.string().openapi({ example: 'job_3kTMd9Qx0vLw7bYz1aR5nC' }),
    requestId: z.string(),
    status: z.literal('pending'),
    estimatedCompletionTime: z.string().openapi({ format: 'date-time', description: 'The median estimate of the completion (docs/eta.md)' }),
    ...jobEstimateFields,
    costMicroCents: z.number().int(),
  eventsUrl,
  })
  .openapi('SubmitJobResponse');

export const EstimateRequestSchema = z
  .strictObject({ model: modelSlug, version, input: inputObject.optional().openapi({ description: 'Fields that change the price (duration, quality, num_images)' }) })
  .openapi('EstimateRequest');

export const CostEstimateSchema = z
  .object({
    baseCostMicroCents: z.number().int().openapi({ description: 'Cost before discounts' }),
    estimatedCostMicroCents: z.number().int().openapi({ description: 'Cost after discounts: what a submit of the same body charges' }),
    breakdown: z.array(z.object({ component: z.string(), costMicroCents: z.number().int() })).openapi({
      description: 'Additive components: base, quantity_multiplier | duration_multiplier, <field>_multiplier, discount',
    }),
    hasDiscount: z.boolean(),
    discounted: z
      .object({ type: z.string(), percentage: z.number(), savedMicroCents: z.number().int() })
      .optional()
      .openapi({ description: 'Present when hasDiscount is true' }),
  })
  .openapi('CostEstimate');

export const ListJobsQuerySchema = z.object({
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_PAGE_SIZE, `limit must be at most ${MAX_PAGE_SIZE}`)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Jobs per page, 1-${MAX_PAGE_SIZE}`, example: DEFAULT_PAGE_SIZE }),
  cursor: z.string().min(1).max(1000).optional().openapi({ description: '`nextCursor` of the previous page' }),
  status: z.enum(JOB_STATUSES).optional(),
  model: z.string().min(1).max(200).optional().openapi({ description: 'Only jobs of this model slug' }),
});

const JobStatusSchema = z.enum(JOB_STATUSES);

export const JobListEntrySchema = z
  .object({
    jobId: z.string(),
    status: JobStatusSchema,
    progress: z.number().int().openapi({ description: '0-100; a completed job shows 100' }),
    model: z.string(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    completedAt: z.string().nullable().openapi({ format: 'date-time', description: 'When the job completed, failed or was cancelled' }),
    batchId: z.string().optional().openapi({ description: 'The batch the job is an item of (absent for a job submitted alone)' }),
    customId: z.string().optional().openapi({ description: "The batch item's customId" }),
    estimatedCompletionTime: z.string().optional().openapi({
      format: 'date-time',
      description: 'The median estimate of the completion while the job waits or runs (docs/eta.md); absent from a listing once it ended',
    }),
    ...jobEstimateFields,
  })
  .openapi('Job');

export const JobPageSchema = z
  .object({ jobs: z.array(JobListEntrySchema), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('JobPage');

const JobOutputSchema = z
  .object({
    url: z.string().url().openapi({ description: 'Signed URL, valid until outputsExpireAt' }),
    contentType: z.string(),
    sizeBytes: z.number().int(),
    width: z.number().int().optional(),
    height: z.number().int().optional(),
    durationSeconds: z.number().optional(),
    manifestUrl: z.string().url().optional().openapi({
      description:
        'Signed URL of the sidecar `.c2pa` Content Credentials, for an output whose type carries none inside (WebM); the other types carry theirs embedded (docs/provenance.md)',
    }),
  })
  .openapi('JobOutput');

// Not a named component: zod-to-openapi renders a nullable reference as allOf [$ref, null], which no validator accepts.
const JobErrorSchema = z.object({ code: z.string(), message: z.string() });

export const JobAttemptSchema = z
  .object({
    number: z.number().int().openapi({ description: '1 for the first route tried, then in order' }),
    provider: z.string().openapi({ description: 'The provider of the route tried', example: 'fal' }),
    role: z.enum(['first', 'failover', 'hedge']).openapi({
      description: '`first`: the route the job started on; `failover`: one tried after a failure; `hedge`: one started beside a first attempt that was slow to start',
    }),
    status: z.enum(['starting', 'running', 'succeeded', 'failed', 'cancelled']).openapi({
      description: '`starting` until the provider reports the generation running; `cancelled` when another attempt won or the job was cancelled',
    }),
    upstreamId: z.string().nullable().openapi({ description: "The upstream's generation id, once it answered" }),
    startedAt: z.string().openapi({ format: 'date-time' }),
    runningAt: z.string().nullable().openapi({ format: 'date-time', description: 'When the provider reported the generation running' }),
    endedAt: z.string().nullable().openapi({ format: 'date-time' }),
    error: JobErrorSchema.nullable(),
    producedOutputs: z.boolean().openapi({ description: "Whether the job's outputs are this attempt's" }),
  })
  .openapi('JobAttempt');

// Not a named component, for the same reason as JobErrorSchema: the record's `delivery` is nullable.
const JobDeliverySchema = z.object({
  status: z.enum(JOB_DELIVERY_STATUSES).openapi({
    description: '`pending` until every output and the manifest are copied and verified; `failed` once retries ran out (24 h by default) or delivery became impossible',
  }),
  reason: z.string().nullable().openapi({ description: 'Why the last attempt failed while pending, or why delivery was given up; null once delivered' }),
  keys: z.array(z.string()).openapi({ description: "The keys written in the bucket, each output's then the manifest's; empty until delivered" }),
  deliveredAt: z.string().nullable().openapi({ format: 'date-time' }),
});

export const JobDetailSchema = JobListEntrySchema.extend({
  version: z.string(),
  input: inputObject,
  webhookUrl: z.string().nullable(),
  webhookEvents: z.array(z.enum(WEBHOOK_EVENT_TYPES)).openapi({ description: 'The events sent to webhookUrl; empty without one' }),
  costMicroCents: z.number().int(),
  refundedMicroCents: z.number().int(),
  estimatedCompletionTime: z.string().openapi({ format: 'date-time', description: 'The median estimate of the completion (docs/eta.md)' }),
  ...jobEstimateFields,
  deadline: z.string().nullable().openapi({ format: 'date-time', description: 'When the job must be done by (`deadline` or `cancelAfter` at submit); null without one' }),
  startedAt: z.string().nullable().openapi({ format: 'date-time' }),
  error: JobErrorSchema.nullable(),
  outputs: z.array(JobOutputSchema),
  outputsExpireAt: z.string().nullable().openapi({ format: 'date-time', description: 'When the signed URLs of `outputs` stop working' }),
  retentionSeconds: z.number().int().nullable().openapi({ description: 'How long the outputs are kept after completion, fixed at submit; null: until deleted' }),
  outputsRetainedUntil: z.string().nullable().openapi({
    format: 'date-time',
    description: 'When the outputs are deleted from storage (completion plus `retentionSeconds`); null before completion and when they are kept forever',
  }),
  outputsDeletedAt: z.string().nullable().openapi({ format: 'date-time', description: 'When the outputs were deleted; `outputs` is empty from then on' }),
  outputsDeletedReason: z.enum(OUTPUTS_DELETED_REASONS).nullable().openapi({
    description: 'Why: `retention` (their retention passed), `client` (the job was deleted), `operator` (the account was erased)',
  }),
  upstream: z
    .object({
      id: z.string().openapi({ description: "The upstream's generation id (fal request, Replicate prediction, Runway task, Google operation)" }),
      stage: z.string().nullable().openapi({ description: "The upstream's own status or last log line, e.g. IN_QUEUE, THROTTLED" }),
      queuePosition: z.number().int().nullable(),
    })
    .nullable()
    .openapi({ description: 'The generation at the real upstream that runs this job; null for built-in models and before the upstream accepted it' }),
  attempts: z.array(JobAttemptSchema).openapi({
    description:
      'Each route the job was tried on, oldest first: one for a job that ran where it started, more after a failover (docs/routing.md). ' +
      'Empty until a worker takes the job, and for jobs from before routing.',
  }),
  delivery: JobDeliverySchema.nullable().openapi({
    description:
      "The copy of the outputs to the account's own bucket (docs/outputs.md); null when the account had no destination when the job completed",
  }),
  eventsUrl,
  contentErasedAt: z.string().nullable().openapi({
    format: 'date-time',
    description: 'When the job\'s content (input, outputs, input files, events, webhook log, workflow history) was erased by `DELETE /v1/jobs/{jobId}` or an operator; null while it is kept',
  }),
}).openapi('JobDetail');

export const SubmittedJobSchema = JobDetailSchema.extend({ requestId: z.string() }).openapi('SubmittedJob');

export const JobIdParamsSchema = z.object({ jobId: z.string().openapi({ example: 'job_3kTMd9Qx0vLw7bYz1aR5nC' }) });

export const CancelJobResponseSchema = z
  .object({ jobId: z.string(), status: z.literal('cancelled'), refundedMicroCents: z.number().int() })
  .openapi('CancelJobResponse');

export const JobErasureSchema = z
  .object({
    jobId: z.string(),
    status: JobStatusSchema.openapi({ description: 'The status the job ended with (completed, failed or cancelled)' }),
    contentErasedAt: z.string().openapi({ format: 'date-time', description: 'When the content was erased: the first erasure\'s time, the same on every later DELETE' }),
    outputsDeletedAt: z.string().nullable().openapi({ format: 'date-time', description: 'When the outputs were deleted from storage; null for a job that had none' }),
    outputsDeletedReason: z.enum(OUTPUTS_DELETED_REASONS).nullable().openapi({ description: 'Why the outputs went: `client` for this erasure, `retention` when they had expired before' }),
  })
  .openapi('JobErasure');

export const JOB_EVENT_TYPES = [
  'job.created',
  'job.processing',
  'job.progress',
  'job.attempt',
  'job.completed',
  'job.failed',
  'job.cancelled',
  'job.outputs_deleted',
] as const;

export const JobEventSchema = z
  .object({
    eventId: z.string().openapi({ description: "Position in the account's event stream: the SSE id of `GET /v1/jobs/events`" }),
    jobId: z.string(),
    sequence: z.number().int().openapi({ description: "Position in the job's event stream, from 1: the SSE id of `GET /v1/jobs/{jobId}/events`" }),
    type: z.enum(JOB_EVENT_TYPES),
    createdAt: z.string().openapi({ format: 'date-time' }),
    status: JobStatusSchema,
    progress: z.number().int().openapi({ description: '0-100' }),
    stage: z.string().nullable().openapi({ description: "The upstream's own status or last log line, when the job runs on one" }),
    queuePosition: z.number().int().nullable().openapi({ description: "The upstream's own queue position, where it reports one (`upstream.queuePosition`); genmedia's is `placeInLine`" }),
    estimatedCompletionTime: z.string().nullable().openapi({ format: 'date-time', description: 'The median estimate; null once the job is terminal' }),
    ...jobEstimateFields,
    outputs: z.array(JobOutputSchema).optional().openapi({ description: 'On `job.completed`: the outputs with signed URLs' }),
    attempts: z.array(JobAttemptSchema).optional().openapi({
      description: "On `job.attempt` (the job started another attempt: a failover, or a hedge): the job's attempts as they stood then",
    }),
    error: JobErrorSchema.optional().openapi({ description: 'On `job.failed`, and on `job.cancelled` at the deadline (`DEADLINE_EXCEEDED`)' }),
    refundedMicroCents: z.number().int().optional().openapi({ description: 'On `job.failed` and `job.cancelled`' }),
    outputsRetainedUntil: z.string().nullable().optional().openapi({
      format: 'date-time',
      description: 'On `job.completed`: when the outputs are deleted from storage; null when they are kept forever',
    }),
    outputsDeletedAt: z.string().optional().openapi({ format: 'date-time', description: 'On `job.outputs_deleted`: when the outputs were deleted' }),
    outputsDeletedReason: z.enum(OUTPUTS_DELETED_REASONS).optional().openapi({ description: 'On `job.outputs_deleted`: `retention`, `client` or `operator`' }),
  })
  .openapi('JobEvent');

export const JobEventPageSchema = z
  .object({
    events: z.array(JobEventSchema),
    hasMore: z.boolean(),
    nextSince: z.string().openapi({ description: 'Pass as `since` for the next page (or as `Last-Event-ID` to stream from there)' }),
  })
  .openapi('JobEventPage');

const eventPosition = z
  .string()
  .regex(/^\d{1,18}$/, 'must be a non-negative integer')
  .openapi({ description: 'Only events after this position (`sequence` for one job, `eventId` for the account)', example: '0' });

export const JobEventsQuerySchema = z.object({
  since: eventPosition.optional(),
  limit: z.coerce
    .number({ error: 'limit must be a number' })
    .int('limit must be an integer')
    .min(1, 'limit must be at least 1')
    .max(MAX_EVENT_PAGE_SIZE, `limit must be at most ${MAX_EVENT_PAGE_SIZE}`)
    .default(DEFAULT_EVENT_PAGE_SIZE)
    .openapi({ description: `JSON answers only: events per page, 1-${MAX_EVENT_PAGE_SIZE}` }),
});

/** One job's events also open with the job's signed `eventsUrl`, whose token stands in for an API key. */
export const JobEventsAccessQuerySchema = JobEventsQuerySchema.extend({
  token: z
    .string()
    .optional()
    .openapi({
      description:
        "The token of the job's signed `eventsUrl`: reads this job's events without an API key (for a browser's EventSource), " +
        'until it expires and while the key that submitted the job and its account may still be used',
    }),
});

export const LastEventIdSchema = eventPosition;

export type JobListEntry = z.infer<typeof JobListEntrySchema>;
export type JobDetail = z.infer<typeof JobDetailSchema>;
export type JobErasure = z.infer<typeof JobErasureSchema>;
export type JobOutputView = z.infer<typeof JobOutputSchema>;
export type JobEventView = z.infer<typeof JobEventSchema>;
export type JobEventPage = z.infer<typeof JobEventPageSchema>;
