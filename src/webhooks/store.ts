/**
 * The webhook delivery log: one `webhook_events` row per job and event type (its id is the
 * `webhook-id`), one `webhook_attempts` row per HTTP attempt.
 */
import type { Prisma, PrismaClient } from '@prisma/client';
import type { WebhookEventStatus, DeliveredWebhookEventType } from '../shared/webhooks';

export interface WebhookEventRecord {
  id: string;
  jobId: string;
  accountId: string;
  type: DeliveredWebhookEventType;
  url: string;
  payload: Record<string, unknown>;
  status: WebhookEventStatus;
  createdAt: Date;
  deliveredAt: Date | null;
}

export interface WebhookAttemptRecord {
  attempt: number;
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  redelivery: boolean;
}

export interface NewWebhookAttempt {
  eventId: string;
  jobId: string;
  attempt: number;
  attemptedAt: Date;
  statusCode?: number;
  error?: string;
  durationMs: number;
  redelivery: boolean;
}

export interface WebhookStore {
  /** Creates the event unless it exists (a retried step or a redelivery); returns the stored event. */
  ensureEvent(event: Omit<WebhookEventRecord, 'status' | 'createdAt' | 'deliveredAt'>): Promise<WebhookEventRecord>;
  findEvent(eventId: string): Promise<WebhookEventRecord | null>;
  /** Highest attempt number recorded for the event, 0 when none. */
  lastAttemptNumber(eventId: string): Promise<number>;
  recordAttempt(attempt: NewWebhookAttempt): Promise<void>;
  setStatus(eventId: string, status: WebhookEventStatus, deliveredAt?: Date): Promise<void>;
  /** The job's events, oldest first, each with its attempts in order. */
  listForJob(jobId: string): Promise<Array<WebhookEventRecord & { attempts: WebhookAttemptRecord[] }>>;
}

type EventRow = {
  id: string;
  jobId: string;
  accountId: string;
  type: string;
  url: string;
  payload: Prisma.JsonValue;
  status: string;
  createdAt: Date;
  deliveredAt: Date | null;
};

function toEvent(row: EventRow): WebhookEventRecord {
  return {
    id: row.id,
    jobId: row.jobId,
    accountId: row.accountId,
    type: row.type as DeliveredWebhookEventType,
    url: row.url,
    payload: row.payload as Record<string, unknown>,
    status: row.status as WebhookEventStatus,
    createdAt: row.createdAt,
    deliveredAt: row.deliveredAt,
  };
}

/** Error messages are kept short in the log. */
const MAX_ERROR_LENGTH = 500;

export function createWebhookStore(prisma: PrismaClient): WebhookStore {
  return {
    async ensureEvent(event) {
      await prisma.webhookEvent.createMany({
        data: [{ ...event, payload: event.payload as Prisma.InputJsonValue }],
        skipDuplicates: true,
      });
      const row = await prisma.webhookEvent.findUniqueOrThrow({ where: { id: event.id } });
      return toEvent(row);
    },

    async findEvent(eventId) {
      const row = await prisma.webhookEvent.findUnique({ where: { id: eventId } });
      return row ? toEvent(row) : null;
    },

    async lastAttemptNumber(eventId) {
      const { _max } = await prisma.webhookAttempt.aggregate({ where: { eventId }, _max: { attempt: true } });
      return _max.attempt ?? 0;
    },

    async recordAttempt(a) {
      await prisma.webhookAttempt.create({
        data: {
          eventId: a.eventId,
          jobId: a.jobId,
          attempt: a.attempt,
          attemptedAt: a.attemptedAt,
          statusCode: a.statusCode ?? null,
          error: a.error === undefined ? null : a.error.slice(0, MAX_ERROR_LENGTH),
          durationMs: a.durationMs,
          redelivery: a.redelivery,
        },
      });
    },

    async setStatus(eventId, status, deliveredAt) {
      await prisma.webhookEvent.update({
        where: { id: eventId },
        data: deliveredAt ? { status, deliveredAt } : { status },
      });
    },

    async listForJob(jobId) {
      const rows = await prisma.webhookEvent.findMany({
        where: { jobId },
        orderBy: { createdAt: 'asc' },
        include: { attempts: { orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] } },
      });
      return rows.map(({ attempts, ...row }) => ({
        ...toEvent(row),
        attempts: attempts.map((a) => ({
          attempt: a.attempt,
          attemptedAt: a.attemptedAt,
          statusCode: a.statusCode,
          error: a.error,
          durationMs: a.durationMs,
          redelivery: a.redelivery,
        })),
      }));
    },
  };
}
