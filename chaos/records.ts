/**
 * What a chaos run leaves beside its logs for reading a failed check afterwards, once its database is gone: one line
 * per job (status, error, attempts, webhook events and their delivery attempts), and in upstream-outages mode one
 * line per generation an upstream's fake accepted.
 */
import fs from 'node:fs';
import type { PrismaClient } from '../src/db/prisma';
import type { Accepted } from './checks';
import { submitOfPrompt, type Route, type UpstreamFakes } from './upstreamOutages';

const iso = (date: Date | null | undefined) => date?.toISOString() ?? null;

export async function writeJobRecords(prisma: PrismaClient, accepted: Accepted[], file: string): Promise<void> {
  const submitOf = new Map(accepted.map((a) => [a.jobId, a.submit]));
  const jobs = await prisma.job.findMany({
    where: { id: { in: accepted.map((a) => a.jobId) } },
    include: { attempts: { orderBy: { number: 'asc' } } },
    orderBy: { seq: 'asc' },
  });
  const events = await prisma.webhookEvent.findMany({ where: { jobId: { in: jobs.map((j) => j.id) } }, include: { attempts: { orderBy: { id: 'asc' } } } });
  const lines = jobs.map((job) =>
    JSON.stringify({
      jobId: job.id,
      submit: submitOf.get(job.id),
      model: job.modelSlug,
      status: job.status,
      error: job.errorCode ? { code: job.errorCode, message: job.errorMessage } : null,
      createdAt: iso(job.createdAt),
      startedAt: iso(job.startedAt),
      completedAt: iso(job.completedAt),
      winningAttempt: job.winningAttempt,
      attempts: job.attempts.map((a) => ({
        number: a.number,
        provider: a.providerId,
        role: a.role,
        status: a.status,
        upstreamId: a.upstreamId,
        submittedAt: iso(a.submittedAt),
        startedAt: iso(a.startedAt),
        runningAt: iso(a.runningAt),
        endedAt: iso(a.endedAt),
        error: a.errorCode ? { code: a.errorCode, message: a.errorMessage } : null,
        producedOutputs: a.producedOutputs,
      })),
      webhooks: events
        .filter((e) => e.jobId === job.id)
        .map((e) => ({ type: e.type, status: e.status, deliveredAt: iso(e.deliveredAt), attempts: e.attempts.map((a) => ({ status: a.statusCode, error: a.error })) })),
    }),
  );
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}

export function writeUpstreamRecords(fakes: UpstreamFakes, seed: number, file: string): void {
  const record = (route: Route, upstreamId: string, prompt: unknown, createdAt: number, cancelled: boolean) =>
    JSON.stringify({ route, upstreamId, submit: submitOfPrompt(seed, prompt), createdAt: new Date(createdAt).toISOString(), cancelled });
  const lines = [
    ...fakes.fal.falRequests().map((r) => record('fal', r.id, r.input.prompt, r.createdAt, r.cancelled)),
    ...fakes.replicate.predictions().map((p) => record('replicate', p.id, p.input.prompt, p.createdAt, p.canceledAt !== undefined)),
  ];
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
}
