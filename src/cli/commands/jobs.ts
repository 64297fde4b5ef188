import type { Command } from 'commander';
import { jobMargins, showJob, type JobAdminView, type ProviderMargin } from '../../jobs/admin';
import { loadConfig } from '../../config';
import { jobWorkflowId } from '../../contracts/workflows/job';
import type { PrismaClient } from '../../db/prisma';
import { CliError, runCommand } from '../context';

/** The job workflow's page in the Temporal UI: its summary, details, activity timeline and history. */
export function temporalUiLink(config: { uiUrl: string; namespace: string }, jobId: string): string {
  return `${config.uiUrl}/namespaces/${encodeURIComponent(config.namespace)}/workflows/${jobWorkflowId(jobId)}`;
}

function describeJob(job: JobAdminView): string {
  const lines = [
    `job ${job.jobId} ${job.status} (${job.progress}%)`,
    `  account ${job.accountId}, model ${job.model}@${job.version}, provider ${job.providerId}`,
    `  created ${job.createdAt}, started ${job.startedAt ?? '-'}, finished ${job.completedAt ?? '-'}`,
    `  charged ${job.costMicroCents}, refunded ${job.refundedMicroCents} micro-cents`,
  ];
  if (job.upstream.id || job.upstream.submittedAt) {
    lines.push(
      `  upstream ${job.upstream.id ?? '(answer lost)'}: ${job.upstream.stage ?? '-'}` +
        (job.upstream.queuePosition !== null ? `, queue position ${job.upstream.queuePosition}` : '') +
        `, cost ${job.upstream.costMicroCents ?? 'not reported'}`,
    );
  }
  if (job.error) lines.push(`  error ${job.error.code}: ${job.error.message}`);
  for (const output of job.outputs) lines.push(`  output ${output.key} ${output.contentType} ${output.sizeBytes} bytes`);
  for (const entry of job.ledger) lines.push(`  ledger ${entry.kind} ${entry.amountMicroCents} at ${entry.createdAt}`);
  return lines.join('\n');
}

function describeMargins(result: { since: string | null; providers: ProviderMargin[] }): string {
  const header = `provider        jobs  completed  revenue µ¢       upstream cost µ¢ (jobs)  margin µ¢        margin %`;
  const rows = result.providers.map((p) =>
    [
      p.providerId.padEnd(14),
      String(p.jobs).padStart(5),
      String(p.completedJobs).padStart(10),
      String(p.revenueMicroCents).padStart(16),
      `${p.upstreamCostMicroCents} (${p.jobsWithCost})`.padStart(24),
      String(p.marginMicroCents ?? '-').padStart(16),
      p.marginPercent === null ? '       -' : `${p.marginPercent.toFixed(1)}%`.padStart(8),
    ].join(' '),
  );
  return [`since ${result.since ?? 'the beginning'}`, header, ...rows].join('\n');
}

/** A command on one job: `read` finds it (null when there is none, answered JOB_NOT_FOUND). */
function jobCommand<T extends object>(jobs: Command, name: string, description: string, read: (prisma: PrismaClient, jobId: string) => Promise<T | null>, human: (result: T) => string) {
  jobs
    .command(name)
    .description(description)
    .argument('<jobId>')
    .option('--json', 'print one JSON object')
    .action((jobId: string, opts) =>
      runCommand(
        opts,
        async (prisma) => {
          const result = await read(prisma, jobId);
          if (!result) throw new CliError('JOB_NOT_FOUND', `no job ${jobId}`);
          return result;
        },
        human,
      ),
    );
}

export function registerJobCommands(admin: Command): void {
  const jobs = admin.command('jobs').description('Inspect jobs and what they earned');
  jobCommand(jobs, 'show', 'One job with its upstream generation, cost and ledger rows', showJob, describeJob);
  jobCommand(
    jobs,
    'open',
    "Prints the link to the job's workflow in the Temporal UI",
    async (prisma, jobId) => {
      const job = await prisma.job.findUnique({ where: { id: jobId }, select: { id: true } });
      return job ? { jobId, url: temporalUiLink(loadConfig().temporal, jobId) } : null;
    },
    (result) => result.url,
  );
  jobs
    .command('margins')
    .description('Per provider: revenue (charges less refunds), what the upstreams reported they cost, and the margin')
    .option('--since <date>', 'only jobs created at or after this ISO 8601 date')
    .option('--json', 'print one JSON object')
    .action((opts) =>
      runCommand(
        opts,
        async (prisma) => {
          const since = opts.since === undefined ? null : new Date(opts.since);
          if (since && Number.isNaN(since.getTime())) throw new CliError('INVALID_ARGUMENTS', `--since ${opts.since} is not a date`);
          return { since: since?.toISOString() ?? null, providers: await jobMargins(prisma, since) };
        },
        describeMargins,
      ),
    );
}
