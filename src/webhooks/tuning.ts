/** Tuning of webhook delivery (src/lib/tuning.ts): read as `config.webhooks.*`; tests shorten the schedule and timeouts. */
import { z } from 'zod';
import { positiveInt, tuning } from '../lib/tuning';

export const WEBHOOKS_TUNING = tuning({
  /** Seconds before each delivery attempt: the Standard Webhooks recommendation (workflows/webhookSchedule.ts). */
  retryScheduleSeconds: z.array(z.number().nonnegative()).min(1).default([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]),
  /** Timeout of one delivery attempt (DNS, connect, TLS, response). */
  timeoutMs: positiveInt.default(15_000),
  /** How long deliveries are also signed with the previous secret after a rotation. */
  secretRotationWindowSeconds: z.number().int().min(0).default(24 * 60 * 60),
  /** Bytes of a receiver's response that are read. */
  maxResponseBytes: z.number().int().min(0).default(4096),
  /** Upper bound of a webhook payload (at least 2048); large `input` fields are truncated to fit. */
  maxPayloadBytes: z.number().int().min(2048).default(20 * 1024),
  /** Least time between two `job.progress` webhooks of one job. */
  progressIntervalSeconds: z.number().int().min(1).default(5),
});
