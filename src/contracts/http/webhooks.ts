import { z } from './zod';
import { WEBHOOK_EVENT_TYPES } from '../../shared/webhooks';
import { JobDetailSchema } from './jobs';

export const JobIdParamsSchema = z.object({ jobId: z.string().openapi({ description: 'Job identifier' }) });

export const WebhookAttemptSchema = z
  .object({
    attempt: z.number().int().openapi({ description: 'Attempt number for the event, from 1; redeliveries continue the count' }),
    attemptedAt: z.string().openapi({ format: 'date-time' }),
    statusCode: z.number().int().nullable().openapi({ description: 'HTTP status answered by the receiver; null when none was received' }),
    error: z
      .string()
      .nullable()
      .openapi({ description: 'Network, TLS, timeout or address error, or "redirect … not followed"; null otherwise' }),
    durationMs: z.number().int(),
    redelivery: z.boolean().openapi({ description: 'Made by POST /v1/jobs/{jobId}/webhooks/redeliver' }),
  })
  .openapi('WebhookAttempt');

export const WebhookEventSchema = z
  .object({
    webhookId: z.string().openapi({ description: 'The `webhook-id` header, the same on every attempt', example: 'msg_0f3c9a1be2d54e0c8b7a6f5e4d3c2b1a' }),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    url: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']).openapi({
      description: '`pending` while attempts remain, `delivered` after a 2xx, `failed` after 410 Gone or the last attempt',
    }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    deliveredAt: z.string().nullable().openapi({ format: 'date-time' }),
    attempts: z.array(WebhookAttemptSchema),
  })
  .openapi('WebhookEvent');

export const JobWebhooksResponseSchema = z
  .object({
    jobId: z.string(),
    webhookUrl: z.string().nullable(),
    events: z.array(WebhookEventSchema),
  })
  .openapi('JobWebhooks');

export const RedeliveryResponseSchema = z
  .object({
    jobId: z.string(),
    webhookId: z.string(),
    type: z.enum(WEBHOOK_EVENT_TYPES),
    status: z.literal('pending'),
  })
  .openapi('WebhookRedelivery');

export const WebhookPayloadSchema = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    version: z.literal('v1'),
    timestamp: z.string().openapi({ format: 'date-time', description: 'When the event happened; the same on every attempt' }),
    data: JobDetailSchema.openapi({ description: 'The job as `GET /v1/jobs/{jobId}` returns it at the time of the event' }),
    truncated: z
      .array(z.string())
      .optional()
      .openapi({ description: 'Paths of `data.input` values shortened to keep the body under the size limit; fetch the job for the full input' }),
  })
  .openapi('WebhookPayload');
