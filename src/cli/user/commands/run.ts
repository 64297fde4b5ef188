import { InvalidArgumentError, Option, type Command } from 'commander';
import type { CostEstimate, Genmedia } from '@genmedia/client';
import { CliError } from '../../context';
import { confirmCost, DEFAULT_CONFIRM_OVER } from '../confirmCost';
import { downloadOutputs } from '../download';
import { assignFile, buildInput, collect, splitAssignment, type InputSchema } from '../inputs';
import { describeFinished, followInTerminal } from '../follow';
import { formatDollars } from '../../../shared/money';
import { runClientCommand, type CommandOptions } from '../output';
import { JobProgress, progressModeFor } from '../progress';
import { connectionOptions } from '../options';
import { openClient } from '../session';
import { JOB_PRIORITIES, type JobPriority } from '../../../shared/jobPriority';

interface InputOptions extends CommandOptions {
  input: string[];
  inputJson?: string;
  /** Only on `run`: `estimate` prices fields, and files never change a price. */
  file?: string[];
  modelVersion?: string;
}

interface RunOptions extends InputOptions {
  out: string;
  download: boolean;
  yes?: boolean;
  confirmOver?: string;
  webhookUrl?: string;
  priority?: JobPriority;
  cancelAfter?: number;
}

function inputOptions(command: Command): Command {
  return connectionOptions(command)
    .argument('<model>', 'model slug, e.g. pixelforge/forge-pro/text-to-image')
    .option('-i, --input <key=value>', "an input field (repeatable), typed by the model's input schema", collect, [])
    .option('--input-json <json>', 'input fields as one JSON object; -i values go on top')
    .option('--model-version <id>', 'a version of the model (default: its current one)');
}

/** The model's version and the job input: -i pairs typed by its schema, --file uploads replaced by their URLs. */
async function prepareJob(client: Genmedia, model: string, options: InputOptions) {
  const detail = await client.getModel(model);
  const version = options.modelVersion ?? detail.currentVersion;
  const found = detail.versions.find((v) => v.versionId === version);
  if (!found) throw new CliError('INVALID_ARGUMENTS', `${model} has no version ${version}; it has ${detail.versions.map((v) => v.versionId).join(', ')}`);
  const schema = found.inputSchema as InputSchema;
  const input = buildInput(schema, options.input, options.inputJson);
  for (const assignment of options.file ?? []) {
    const [key, file] = splitAssignment(assignment, '--file');
    const uploaded = await client.upload(file);
    assignFile(schema, input, key, uploaded.fileUrl);
  }
  return { version, input };
}

function wholeSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 1) throw new InvalidArgumentError('a whole number of seconds, at least 1');
  return seconds;
}

function describeEstimate(estimate: CostEstimate): string {
  const lines = [`estimated cost ${formatDollars(estimate.estimatedCostMicroCents)}`];
  for (const part of estimate.breakdown) lines.push(`  ${part.component.padEnd(24)} ${formatDollars(part.costMicroCents)}`);
  if (estimate.discounted) lines.push(`  (${estimate.discounted.type} discount ${estimate.discounted.percentage}%: saved ${formatDollars(estimate.discounted.savedMicroCents)})`);
  return lines.join('\n');
}

export function registerRunCommands(program: Command): void {
  inputOptions(program.command('run'))
    .description('Estimate, submit and follow a job with a progress bar, then save its outputs')
    .option('-f, --file <key=path>', 'upload a local file and use its URL as the field (repeatable)', collect, [])
    .option('-o, --out <dir>', 'where to save the outputs', '.')
    .option('--no-download', 'print the output URLs instead of saving the files')
    .option('-y, --yes', 'submit without asking, whatever the price')
    .option('--confirm-over <dollars>', `ask before submitting a job that costs more than this (default ${DEFAULT_CONFIRM_OVER}, or GENMEDIA_CONFIRM_OVER)`)
    .option('--webhook-url <url>', 'also notify this https:// URL when the job ends')
    .addOption(new Option('--priority <priority>', "lower than the plan's, for work that may wait (default: the plan's)").choices([...JOB_PRIORITIES]))
    .option('--cancel-after <seconds>', 'the job must be done within this many seconds: cancelled at that deadline, refunded unless a hosted upstream had begun it', wholeSeconds)
    .action((model: string, options: RunOptions) =>
      runClientCommand(
        options,
        async () => {
          const client = openClient(options);
          const { version, input } = await prepareJob(client, model, options);
          await confirmCost('job', (await client.estimate({ model, version, input })).estimatedCostMicroCents, options);
          let jobId: string | null = null;
          const progress = new JobProgress(progressModeFor(options.json));
          return followInTerminal(
            client,
            async (signal) => {
              const job = await client.run(model, input, {
                version,
                webhookUrl: options.webhookUrl,
                priority: options.priority,
                ...(options.cancelAfter === undefined ? {} : { cancelAfter: options.cancelAfter }),
                signal,
                onSubmitted: (submitted) => {
                  jobId = submitted.jobId;
                  progress.start(submitted.jobId);
                },
                onProgress: (event) => progress.update(event),
              });
              progress.pause();
              return { job, files: options.download ? await downloadOutputs(job, options.out) : [] };
            },
            () => jobId,
            progress,
          );
        },
        describeFinished,
      ),
    );

  inputOptions(program.command('estimate'))
    .description('What a job with these inputs would cost, with the breakdown; nothing is charged')
    .action((model: string, options: InputOptions) =>
      runClientCommand(
        options,
        async () => {
          const client = openClient(options);
          const { version, input } = await prepareJob(client, model, options);
          return client.estimate({ model, version, input });
        },
        describeEstimate,
      ),
    );
}
