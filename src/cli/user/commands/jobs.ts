import type { Command } from 'commander';
import { GenmediaJobError, isTerminal, type Job, type JobPage } from '@genmedia/client';
import { parseNonNegativeInt } from '../../context';
import { downloadOutputs } from '../download';
import { describeFinished, followInTerminal } from '../follow';
import { formatDollars } from '../../../shared/money';
import { runClientCommand, type CommandOptions } from '../output';
import { JobProgress, progressModeFor } from '../progress';
import { connectionOptions } from '../options';
import { openClient } from '../session';

function describePage(page: JobPage): string {
  if (page.jobs.length === 0) return 'no jobs';
  const rows = page.jobs.map((j) => [j.jobId.padEnd(28), j.status.padEnd(10), `${j.progress}%`.padStart(4), j.createdAt.slice(0, 19).padEnd(19), j.model].join('  '));
  if (page.hasMore && page.nextCursor) rows.push(`more: genmedia jobs ls --cursor ${page.nextCursor}`);
  return [['job'.padEnd(28), 'status'.padEnd(10), 'done', 'created'.padEnd(19), 'model'].join('  '), ...rows].join('\n');
}

export function describeJob(job: Job): string {
  const lines = [
    `${job.jobId}  ${job.status} ${job.progress}%`,
    `  model     ${job.model} (${job.version})`,
    `  created   ${job.createdAt}${job.startedAt ? `, started ${job.startedAt}` : ''}${job.completedAt ? `, finished ${job.completedAt}` : ''}`,
    `  cost      ${formatDollars(job.costMicroCents)}${job.refundedMicroCents ? `, refunded ${formatDollars(job.refundedMicroCents)}` : ''}`,
  ];
  if (!isTerminal(job.status)) lines.push(`  ETA       ${job.estimatedCompletionTime}`);
  if (job.upstream?.stage) lines.push(`  stage     ${job.upstream.stage}`);
  if (job.error) lines.push(`  error     ${job.error.code}: ${job.error.message}`);
  if (job.contentErasedAt) lines.push(`  erased    ${job.contentErasedAt}`);
  // A job that failed over shows each route it was tried on.
  if (job.attempts.length > 1) {
    for (const attempt of job.attempts) {
      const outcome = attempt.error ? `${attempt.status} (${attempt.error.code})` : attempt.status;
      lines.push(`  attempt ${attempt.number} ${attempt.provider}: ${outcome}${attempt.producedOutputs ? ', outputs' : ''}`);
    }
  }
  for (const output of job.outputs) lines.push(`  output    ${output.contentType} ${output.sizeBytes} bytes  ${output.url}`);
  return lines.join('\n');
}

export function registerUserJobCommands(program: Command): void {
  const jobs = program.command('jobs').description('Your jobs: list, inspect, cancel, follow, delete');

  connectionOptions(jobs.command('ls'))
    .description('Your jobs, newest first')
    .option('--status <status>', 'only jobs with this status: pending, processing, completed, failed, cancelled')
    .option('--model <slug>', 'only jobs of this model')
    .option('--limit <n>', 'jobs per page, 1-100', parseNonNegativeInt, 20)
    .option('--cursor <cursor>', 'the next page, as printed after the previous one')
    .action((options: CommandOptions & { status?: Job['status']; model?: string; limit: number; cursor?: string }) =>
      runClientCommand(
        options,
        () => openClient(options).listJobs({ status: options.status, model: options.model, limit: options.limit, cursor: options.cursor }),
        describePage,
      ),
    );

  connectionOptions(jobs.command('get'))
    .description('One job with its outputs')
    .argument('<jobId>')
    .option('--wait <seconds>', 'hold the answer until the job is finished, at most this long (≤ 60)', parseNonNegativeInt)
    .action((jobId: string, options: CommandOptions & { wait?: number }) =>
      runClientCommand(options, () => openClient(options).getJob(jobId, { wait: options.wait }), describeJob),
    );

  connectionOptions(jobs.command('cancel'))
    .description('Cancel a job that has not started; its charge is refunded')
    .argument('<jobId>')
    .action((jobId: string, options: CommandOptions) =>
      runClientCommand(
        options,
        () => openClient(options).cancelJob(jobId),
        (r) => `cancelled ${r.jobId}; refunded ${formatDollars(r.refundedMicroCents)}`,
      ),
    );

  connectionOptions(jobs.command('delete'))
    .description("Erase a finished job's content: outputs, input files, input, events, webhook log; its cost and times stay")
    .argument('<jobId>')
    .action((jobId: string, options: CommandOptions) =>
      runClientCommand(
        options,
        () => openClient(options).deleteJob(jobId),
        (r) => `erased ${r.jobId} (${r.status}) at ${r.contentErasedAt}${r.outputsDeletedAt ? `; outputs deleted at ${r.outputsDeletedAt} (${r.outputsDeletedReason})` : ''}`,
      ),
    );

  connectionOptions(jobs.command('watch'))
    .description('Follow a job with a progress bar until it ends; Ctrl-C offers to cancel it while it is pending')
    .argument('<jobId>')
    .option('-o, --out <dir>', 'save the outputs there once it completes')
    .action((jobId: string, options: CommandOptions & { out?: string }) =>
      runClientCommand(
        options,
        async () => {
          const client = openClient(options);
          const progress = new JobProgress(progressModeFor(options.json));
          progress.start(jobId, 'following');
          return followInTerminal(
            client,
            async (signal) => {
              for await (const event of client.events(jobId, { signal })) progress.update(event);
              progress.pause();
              const job = await client.getJob(jobId, { signal });
              if (job.status !== 'completed') throw new GenmediaJobError(job);
              return { job, files: options.out ? await downloadOutputs(job, options.out) : [] };
            },
            () => jobId,
            progress,
          );
        },
        describeFinished,
      ),
    );
}
