import { InvalidArgumentError, type Command } from 'commander';
import type { AdminJob, Margins } from '@genmedia/client';
import { runAdmin } from './adminClient';


function describeJob(job: AdminJob): string {
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

function describeMargins(result: Margins): string {
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

export function registerJobCommands(admin: Command): void {
  const jobs = admin.command('jobs').description('Inspect jobs and what they earned');
  jobs
    .command('show <jobId>')
    .description('One job of any account with its upstream generation, cost and ledger rows')
    .option('--json', 'print one JSON object')
    .action((jobId: string, _opts, command: Command) => runAdmin(command, (client) => client.getJob(jobId), describeJob));
  jobs
    .command('open <jobId>')
    .description("Prints the link to the job's workflow in the Temporal UI")
    .option('--json', 'print one JSON object')
    .action((jobId: string, _opts, command: Command) =>
      runAdmin(
        command,
        async (client) => ({ jobId, url: (await client.getJob(jobId)).workflowUrl }),
        (r) => r.url,
      ),
    );
  jobs
    .command('margins')
    .description('Per provider: revenue (charges less refunds), what the upstreams reported they cost, and the margin')
    .option('--since <date>', 'only jobs created at or after this ISO 8601 date', parseInstant)
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) => runAdmin(command, (client) => client.margins(opts.since), describeMargins));
}

function parseInstant(value: string): string {
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw new InvalidArgumentError(`${value} is not a date`);
  return at.toISOString();
}
