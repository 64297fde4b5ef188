/** The delivery log and redelivery, as the API offers them to a job's owner. */
import type { Client } from '@temporalio/client';
import type { PrismaClient } from '@prisma/client';
import type { z } from 'zod';
import type { JobWebhooksResponseSchema, RedeliveryResponseSchema, WebhookAttemptSchema, WebhookEventSchema } from '../contracts/http/webhooks';
import { DomainError } from '../shared/errors';
import { DEFAULT_WEBHOOK_EVENTS, type WebhookEventType } from '../shared/webhooks';
import { webhookDeliveryWorkflowContract, webhookRedeliveryWorkflowId, type WebhookDeliveryInput } from '../contracts/workflows/webhookDelivery';
import { startWorkflow } from '../temporal/workflows';
import { createWebhookStore } from './store';

// Answer shapes: the response schemas of src/contracts/http/webhooks.ts.
export type WebhookAttemptView = z.infer<typeof WebhookAttemptSchema>;
export type WebhookEventView = z.infer<typeof WebhookEventSchema>;
export type JobWebhooksView = z.infer<typeof JobWebhooksResponseSchema>;
export type RedeliveryView = z.infer<typeof RedeliveryResponseSchema>;

/**
 * The job if `accountId` owns it. Another account's job reads as not found, so reads never reveal that it
 * exists; actions on it (`forAction`) answer UNAUTHORIZED_ACCESS, as cancel does.
 */
async function ownedJob(prisma: PrismaClient, accountId: string, jobId: string, forAction = false) {
  const job = await prisma.job.findUnique({ where: { id: jobId }, select: { id: true, accountId: true, webhookUrl: true } });
  if (!job || (job.accountId !== accountId && !forAction)) throw new DomainError('JOB_NOT_FOUND', `Job ${jobId} not found`);
  if (job.accountId !== accountId) throw new DomainError('UNAUTHORIZED_ACCESS', `Job ${jobId} belongs to another account`);
  return job;
}

export async function listJobWebhooks(prisma: PrismaClient, accountId: string, jobId: string): Promise<JobWebhooksView> {
  const job = await ownedJob(prisma, accountId, jobId);
  const events = await createWebhookStore(prisma).listForJob(jobId);
  return {
    jobId,
    webhookUrl: job.webhookUrl,
    events: events.map((e) => ({
      webhookId: e.id,
      // A job's log holds its own events only: a batch's are kept under the batch id.
      type: e.type as WebhookEventType,
      url: e.url,
      status: e.status,
      createdAt: e.createdAt.toISOString(),
      deliveredAt: e.deliveredAt?.toISOString() ?? null,
      attempts: e.attempts.map((a) => ({ ...a, attemptedAt: a.attemptedAt.toISOString() })),
    })),
  };
}

/**
 * Sends the job's final event again (same webhook-id and body, new timestamp and signature) through
 * a delivery workflow with the usual retry schedule. A redelivery already running is reused.
 */
export async function redeliverJobWebhook(
  deps: { prisma: PrismaClient; temporal: Client; taskQueue: string },
  accountId: string,
  jobId: string,
): Promise<RedeliveryView> {
  await ownedJob(deps.prisma, accountId, jobId, true);
  const events = await createWebhookStore(deps.prisma).listForJob(jobId);
  const event = events.filter((e) => (DEFAULT_WEBHOOK_EVENTS as readonly string[]).includes(e.type)).at(-1);
  if (!event) {
    throw new DomainError(
      'WEBHOOK_NOT_FOUND',
      `Job ${jobId} has no webhook event to redeliver: it was submitted without webhookUrl or has not finished`,
    );
  }
  const input: WebhookDeliveryInput = { jobId, eventType: event.type, redelivery: true };
  try {
    await startWorkflow(deps.temporal, webhookDeliveryWorkflowContract, {
      taskQueue: deps.taskQueue,
      workflowId: webhookRedeliveryWorkflowId(jobId, event.type),
      args: [input],
      workflowIdConflictPolicy: 'USE_EXISTING',
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    });
  } catch {
    throw new DomainError('SERVICE_UNAVAILABLE', 'The redelivery could not be scheduled right now; retry the request', undefined, {
      retryAfterSeconds: 1,
    });
  }
  return { jobId, webhookId: event.id, type: event.type as WebhookEventType, status: 'pending' };
}

/** The webhooks feature: a job's delivery log and redelivery, assembled once. */
export function createWebhookService(deps: { prisma: PrismaClient; temporal: Client; taskQueue: string }) {
  return {
    listForJob: (accountId: string, jobId: string) => listJobWebhooks(deps.prisma, accountId, jobId),
    redeliver: (accountId: string, jobId: string) => redeliverJobWebhook(deps, accountId, jobId),
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
