/** The batches API's request and response shapes (docs/batches.md). */
import { z } from './zod';
import { JOB_PRIORITIES } from '../../shared/jobPriority';
import { BATCH_ITEM_STATUSES, BATCH_STATUSES, MAX_INLINE_BATCH_ITEMS } from '../../shared/batches';
import { BATCH_WEBHOOK_EVENT_TYPES } from '../../shared/webhooks';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './jobs';

/** One line of a batch: the same fields as a submit, named by the caller's own `customId`. */
export const BatchLineSchema = z
  .strictObject({
    customId: z
      .string({ error: 'customId is required and must be a string' })
      .min(1, 'customId must not be empty')
      .max(200, 'customId must be at most 200 characters')
      .openapi({ description: "The caller's name for the item, unique within the batch; names its outputs in the archive", example: 'sku-1042-front' }),
    model: z.string({ error: 'model is required and must be a string' }).min(1, 'model must not be empty').max(200),
    version: z.string({ error: 'version must be a string' }).min(1).max(100).optional(),
    input: z.record(z.string(), z.unknown(), { error: 'input is required and must be an object' }),
    webhookUrl: z.string({ error: 'webhookUrl must be a string' }).optional().openapi({ description: "The item's own job webhook" }),
    priority: z.enum(JOB_PRIORITIES, { error: `priority must be one of ${JOB_PRIORITIES.join(', ')}` }).optional(),
  })
  .openapi('BatchLine');

export type BatchLine = z.infer<typeof BatchLineSchema>;

const COMPLETION_WINDOW = /^[1-9]\d{0,5}[smhd]$/;

const batchOptions = {
  allowPartial: z
    .boolean({ error: 'allowPartial must be a boolean' })
    .optional()
    .openapi({ description: 'Accept the valid lines and report the invalid ones (`rejected`) instead of refusing the batch' }),
  maxCostMicroCents: z
    .number({ error: 'maxCostMicroCents must be an integer' })
    .int('maxCostMicroCents must be an integer')
    .positive('maxCostMicroCents must be positive')
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ description: 'No item is admitted once the admitted items would cost more: the rest end `skipped`, never charged' }),
  completionWindow: z
    .string({ error: 'completionWindow must be a string such as 24h' })
    .regex(COMPLETION_WINDOW, 'completionWindow must be a number followed by s, m, h or d, such as 24h')
    .optional()
    .openapi({ description: 'Items not admitted within this time of the submit end `expired`, never charged', example: '24h' }),
  webhookUrl: z
    .string({ error: 'webhookUrl must be a string' })
    .optional()
    .openapi({ description: 'https:// URL sent `batch.completed` once every item is final', example: 'https://example.com/hooks/batches' }),
  webhookEvents: z
    .array(z.enum(BATCH_WEBHOOK_EVENT_TYPES, { error: `webhookEvents entries must be one of ${BATCH_WEBHOOK_EVENT_TYPES.join(', ')}` }))
    .min(1, 'webhookEvents must name at least one event')
    .max(BATCH_WEBHOOK_EVENT_TYPES.length)
    .optional()
    .openapi({
      description:
        'Which events are sent to webhookUrl besides `batch.completed`, which is always sent once: `batch.progress` each time ' +
        'another tenth of the items is final (10 %, 20 % ... 90 %; at most nine per batch, at most one per round of the batch). Requires webhookUrl.',
      example: ['batch.progress', 'batch.completed'],
    }),
};

export const CreateBatchRequestSchema = z
  .strictObject({
    items: z
      .array(z.unknown())
      .min(1, 'items must hold at least one line')
      .max(MAX_INLINE_BATCH_ITEMS, `items may hold at most ${MAX_INLINE_BATCH_ITEMS} lines; upload a JSONL file for more`)
      .optional()
      .openapi({ description: `Up to ${MAX_INLINE_BATCH_ITEMS} lines inline (each a BatchLine)`, type: 'array', items: { $ref: '#/components/schemas/BatchLine' } }),
    fileId: z
      .string({ error: 'fileId must be a string' })
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: 'An uploaded `application/jsonl` file (POST /v1/uploads/presign), one BatchLine per line', example: 'file_3kTMd9Qx0vLw7bYz1aR5nC' }),
    ...batchOptions,
  })
  .refine((body) => (body.items === undefined) !== (body.fileId === undefined), { message: 'give either items or fileId', path: ['items'] })
  .refine((body) => body.webhookEvents === undefined || body.webhookUrl !== undefined, { message: 'webhookEvents needs a webhookUrl', path: ['webhookEvents'] })
  .openapi('CreateBatchRequest');

export type CreateBatchRequest = z.infer<typeof CreateBatchRequestSchema>;

export const RejectedLineSchema = z
  .object({
    line: z.number().int().openapi({ description: 'Line number, from 1' }),
    customId: z.string().nullable(),
    code: z.string().openapi({ example: 'INVALID_INPUT' }),
    message: z.string(),
  })
  .openapi('BatchRejectedLine');

export const BatchCountsSchema = z
  .object({
    total: z.number().int(),
    ...Object.fromEntries(BATCH_ITEM_STATUSES.map((status) => [status, z.number().int()])),
  } as Record<'total' | (typeof BATCH_ITEM_STATUSES)[number], z.ZodNumber>)
  .openapi('BatchCounts');

export const BatchSchema = z
  .object({
    batchId: z.string(),
    status: z.enum(BATCH_STATUSES),
    source: z.enum(['inline', 'upload']),
    counts: BatchCountsSchema,
    rejected: z.object({ count: z.number().int(), lines: z.array(RejectedLineSchema) }),
    estimatedCostMicroCents: z.number().int().openapi({ description: "The accepted items' price at submit" }),
    admittedCostMicroCents: z.number().int().openapi({ description: 'Charged for the admitted items, before refunds' }),
    costMicroCents: z.number().int().openapi({ description: 'Cost so far: charged for the admitted items, less their refunds' }),
    maxCostMicroCents: z.number().int().nullable(),
    completionWindow: z.string().nullable(),
    expiresAt: z.string().nullable().openapi({ format: 'date-time' }),
    webhookUrl: z.string().nullable(),
    webhookEvents: z.array(z.enum(BATCH_WEBHOOK_EVENT_TYPES)).openapi({ description: 'The events sent to webhookUrl; empty without one' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    completedAt: z.string().nullable().openapi({ format: 'date-time' }),
    cancelRequestedAt: z.string().nullable().openapi({ format: 'date-time' }),
    estimatedCompletionTime: z.string().nullable().openapi({
      format: 'date-time',
      description: "The median estimate of the batch's completion, from its items' own estimates (or the pace so far while none is in flight); null once final or before anything can tell",
    }),
    estimatedCompletionTimeP90: z.string().nullable().openapi({
      format: 'date-time',
      description: "The 90th percentile of the batch's completion; null once final, or while no item is in flight",
    }),
    estimatedExpiringItems: z.number().int().nullable().openapi({
      description: 'Items expected to reach the end of the completion window before they start, and so to expire; null without a window or an estimate',
    }),
  })
  .openapi('Batch');

/** The id of a batch progress event (`GET /v1/batches/{batchId}/events`): names what the batch showed, opaque to clients. */
export const BatchEventIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'Last-Event-ID must be the id of an event of this stream')
  .openapi({ description: 'The id of the last event received: the stream sends the batch again only once it shows something else', example: 'q3H0u7Zb1KcVt9Lx' });

export const BatchListEntrySchema = BatchSchema.omit({ rejected: true }).openapi('BatchListEntry');

export const BatchPageSchema = z
  .object({ batches: z.array(BatchListEntrySchema), nextCursor: z.string().nullable(), hasMore: z.boolean() })
  .openapi('BatchPage');

export const ListBatchesQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(1000).optional(),
});

export const BatchIdParamsSchema = z.object({ batchId: z.string().min(1).max(100).openapi({ example: 'bat_3kTMd9Qx0vLw7bYz1aR5nC' }) });

export const BatchEstimateSchema = z
  .object({
    itemCount: z.number().int(),
    estimatedCostMicroCents: z.number().int(),
    byModel: z.array(z.object({ model: z.string(), items: z.number().int(), estimatedCostMicroCents: z.number().int() })),
    rejected: z.object({ count: z.number().int(), lines: z.array(RejectedLineSchema) }),
  })
  .openapi('BatchEstimate');

/** One line of GET /v1/batches/{batchId}/results (JSONL). */
export const BatchResultLineSchema = z
  .object({
    line: z.number().int(),
    customId: z.string(),
    jobId: z.string().nullable(),
    status: z.enum(BATCH_ITEM_STATUSES),
    outputs: z.array(z.object({ url: z.string(), contentType: z.string(), sizeBytes: z.number().int() })),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    costMicroCents: z.number().int().openapi({ description: 'Charged less refunded; 0 for an item never admitted' }),
  })
  .openapi('BatchResultLine');
