import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { finalItemCount, type Batch, type BatchEstimate, type BatchPage, type BatchResultLine, type Genmedia } from '@genmedia/client';
import { BATCH_ITEM_STATUSES } from '../../../shared/batches';
import { CliError, parseNonNegativeInt } from '../../context';
import { BatchProgress, describeCounts } from '../batchProgress';
import { confirmCost, DEFAULT_CONFIRM_OVER, type ConfirmOptions } from '../confirmCost';
import { readBatchFile, sourceRequest } from '../batchFile';
import { formatDollars } from '../../../shared/money';
import { parseDollarArgument } from '../dollarArgument';
import { connectionOptions } from '../options';
import { INTERRUPTED_EXIT_CODE, runClientCommand, type CommandOptions } from '../output';
import { progressModeFor } from '../progress';
import { openClient } from '../session';

interface SubmitOptions extends CommandOptions, ConfirmOptions {
  wait?: boolean;
  allowPartial?: boolean;
  maxCost?: number;
  completionWindow?: string;
  webhookUrl?: string;
  idempotencyKey?: string;
}

/** What Ctrl-C during --wait or watch leaves: the batch goes on. */
interface BatchInterrupted {
  interrupted: true;
  batchId: string;
  status: Batch['status'];
}

function describeRejected(batch: Pick<Batch, 'rejected'> | Pick<BatchEstimate, 'rejected'>): string[] {
  if (batch.rejected.count === 0) return [];
  const lines = [`${batch.rejected.count} line(s) rejected:`];
  for (const line of batch.rejected.lines) lines.push(`  line ${line.line}${line.customId ? ` (${line.customId})` : ''}: ${line.code} ${line.message}`);
  if (batch.rejected.count > batch.rejected.lines.length) lines.push(`  ... and ${batch.rejected.count - batch.rejected.lines.length} more`);
  return lines;
}

export function describeBatch(batch: Batch): string {
  const lines = [
    `${batch.batchId}  ${batch.status}`,
    `  items     ${describeCounts(batch)}`,
    `  cost      ${formatDollars(batch.costMicroCents)} so far (estimated ${formatDollars(batch.estimatedCostMicroCents)}${batch.maxCostMicroCents ? `, capped at ${formatDollars(batch.maxCostMicroCents)}` : ''})`,
    `  created   ${batch.createdAt}${batch.completedAt ? `, finished ${batch.completedAt}` : ''}`,
  ];
  if (batch.expiresAt) lines.push(`  expires   ${batch.expiresAt} (${batch.completionWindow})`);
  lines.push(...describeRejected(batch).map((l) => `  ${l}`));
  return lines.join('\n');
}

function describeEstimate(estimate: BatchEstimate): string {
  const lines = [`${estimate.itemCount} item(s), estimated ${formatDollars(estimate.estimatedCostMicroCents)}`];
  for (const row of estimate.byModel) lines.push(`  ${row.model}  ${row.items} item(s)  ${formatDollars(row.estimatedCostMicroCents)}`);
  lines.push(...describeRejected(estimate));
  return lines.join('\n');
}

function describePage(page: BatchPage): string {
  if (page.batches.length === 0) return 'no batches';
  const header = ['batch'.padEnd(28), 'status'.padEnd(10), 'final'.padStart(11), 'cost'.padStart(10), 'created'].join('  ');
  const rows = page.batches.map((b) => {
    const final = `${finalItemCount(b.counts)}/${b.counts.total}`;
    return [b.batchId.padEnd(28), b.status.padEnd(10), final.padStart(11), formatDollars(b.costMicroCents).padStart(10), b.createdAt.slice(0, 19)].join('  ');
  });
  if (page.hasMore && page.nextCursor) rows.push(`more: genmedia batch ls --cursor ${page.nextCursor}`);
  return [header, ...rows].join('\n');
}

export function describeResultRow(result: BatchResultLine): string {
  const outcome = result.error ? `${result.error.code}: ${result.error.message}` : result.outputs.map((o) => o.url).join(' ');
  return [String(result.line).padStart(5), result.customId.padEnd(24), result.status.padEnd(9), formatDollars(result.costMicroCents).padStart(9), outcome].join('  ');
}

function describeFinal(result: Batch | BatchInterrupted): string {
  if ('interrupted' in result) return '';
  return `${result.batchId} ${result.status}: ${describeCounts(result)}`;
}

/**
 * Follows the batch's event stream to its end with the progress bar. Ctrl-C stops following (exit 130) and leaves the batch running.
 * Exit status 1 when any item did not complete.
 */
async function followBatch(client: Genmedia, batchId: string, options: CommandOptions): Promise<Batch | BatchInterrupted> {
  const progress = new BatchProgress(progressModeFor(options.json));
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.on('SIGINT', onSigint);
  try {
    const batch = await client.waitForBatch(batchId, { signal: controller.signal, onProgress: (b) => progress.update(b) });
    progress.stop();
    if (batch.counts.completed < batch.counts.total) process.exitCode = 1;
    return batch;
  } catch (err) {
    progress.stop();
    if (!controller.signal.aborted) throw err;
    const batch = await client.getBatch(batchId);
    if (!options.json) process.stderr.write(`\nbatch ${batchId} is ${batch.status} and goes on; follow it with: genmedia batch watch ${batchId}\n`);
    process.exitCode = INTERRUPTED_EXIT_CODE;
    return { interrupted: true, batchId, status: batch.status };
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function dollarsOption(text: string): number {
  try {
    return parseDollarArgument(text);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

function submitBody(options: SubmitOptions) {
  return {
    allowPartial: options.allowPartial,
    maxCostMicroCents: options.maxCost,
    completionWindow: options.completionWindow,
    webhookUrl: options.webhookUrl,
  };
}

/** The results as JSONL on stdout, streamed; `--table` one aligned row per item; `--json` one object. */
async function printResults(client: Genmedia, batchId: string, options: CommandOptions & { table?: boolean; status?: string }): Promise<void> {
  if (options.status !== undefined && !(BATCH_ITEM_STATUSES as readonly string[]).includes(options.status)) {
    throw new CliError('INVALID_ARGUMENTS', `--status must be one of ${BATCH_ITEM_STATUSES.join(', ')}`);
  }
  const wanted = (r: BatchResultLine) => options.status === undefined || r.status === options.status;
  if (options.json) {
    const results: BatchResultLine[] = [];
    for await (const result of client.batchResults(batchId)) if (wanted(result)) results.push(result);
    process.stdout.write(JSON.stringify({ results }) + '\n');
    return;
  }
  if (options.table) process.stdout.write(['line'.padStart(5), 'customId'.padEnd(24), 'status'.padEnd(9), 'cost'.padStart(9), 'outputs or error'].join('  ') + '\n');
  for await (const result of client.batchResults(batchId)) {
    if (wanted(result)) process.stdout.write((options.table ? describeResultRow(result) : JSON.stringify(result)) + '\n');
  }
}

/** Streams the archive to `file` through a temporary name, so an interrupted download leaves no partial ZIP behind. */
async function downloadArchive(client: Genmedia, batchId: string, file: string): Promise<{ batchId: string; file: string; bytes: number }> {
  const partial = `${file}.part`;
  const body = await client.batchArchive(batchId);
  const out = createWriteStream(partial);
  try {
    await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), out);
    await rename(partial, file);
  } catch (err) {
    await rm(partial, { force: true });
    throw err;
  }
  return { batchId, file, bytes: out.bytesWritten };
}

export function registerBatchCommands(program: Command): void {
  const batch = program.command('batch').description('Batches: many generations from one JSONL file, submitted, followed and downloaded as one');

  connectionOptions(batch.command('submit'))
    .description('Submit a JSONL file as a batch (uploaded, or inline when small); prints its id')
    .argument('<file>', 'one {customId, model, input, ...} per line (docs/batches.md)')
    .option('--wait', 'follow it with a progress bar until every item is final')
    .option('--allow-partial', 'run the valid lines and report the invalid ones, instead of refusing the batch')
    .option('--max-cost <dollars>', 'admit no item once the admitted items would cost more', dollarsOption)
    .option('--completion-window <window>', 'items not admitted within it (30m, 24h, 2d) end expired, never charged')
    .option('--webhook-url <url>', 'https:// URL sent batch.completed once every item is final')
    .option('--idempotency-key <key>', 'the same key and file answer the same batch (one is made up otherwise)')
    .option('-y, --yes', 'submit without asking, whatever the estimate')
    .option('--confirm-over <dollars>', `ask before submitting a batch estimated above this (default ${DEFAULT_CONFIRM_OVER}, or GENMEDIA_CONFIRM_OVER)`)
    .action((file: string, options: SubmitOptions) =>
      runClientCommand(
        options,
        async () => {
          const client = openClient(options);
          const source = await sourceRequest(client, await readBatchFile(file), path.basename(file));
          // The estimate prices the valid lines; refused ones are reported by the submit itself.
          if (!options.yes) await confirmCost('batch', (await client.estimateBatch(source)).estimatedCostMicroCents, options);
          const created = await client.createBatch({ ...source, ...submitBody(options) }, { idempotencyKey: options.idempotencyKey });
          if (!options.json) {
            process.stderr.write(`batch ${created.batchId} submitted: ${created.counts.total} item(s), estimated ${formatDollars(created.estimatedCostMicroCents)}\n`);
            for (const line of describeRejected(created)) process.stderr.write(`${line}\n`);
          }
          return options.wait ? followBatch(client, created.batchId, options) : created;
        },
        // Without --wait stdout is the id alone, for `BATCH=$(genmedia batch submit lines.jsonl)`.
        (result) => (options.wait ? describeFinal(result) : result.batchId),
      ),
    );

  connectionOptions(batch.command('estimate'))
    .description('Validate and price a JSONL file, with a breakdown by model; nothing is charged')
    .argument('<file>')
    .option('--allow-partial', 'price the valid lines and report the invalid ones')
    .action((file: string, options: SubmitOptions) =>
      runClientCommand(
        options,
        async () => {
          const client = openClient(options);
          const source = await sourceRequest(client, await readBatchFile(file), path.basename(file));
          return client.estimateBatch({ ...source, allowPartial: options.allowPartial });
        },
        describeEstimate,
      ),
    );

  connectionOptions(batch.command('ls').alias('list'))
    .description('Your batches, newest first')
    .option('--limit <n>', 'batches per page, 1-100', parseNonNegativeInt, 20)
    .option('--cursor <cursor>', 'the next page, as printed after the previous one')
    .action((options: CommandOptions & { limit: number; cursor?: string }) =>
      runClientCommand(options, () => openClient(options).listBatches({ limit: options.limit, cursor: options.cursor }), describePage),
    );

  connectionOptions(batch.command('get'))
    .description('One batch: counts per item status, cost so far, ETA')
    .argument('<batchId>')
    .action((batchId: string, options: CommandOptions) => runClientCommand(options, () => openClient(options).getBatch(batchId), describeBatch));

  connectionOptions(batch.command('watch'))
    .description('Follow a batch with the progress bar until every item is final')
    .argument('<batchId>')
    .action((batchId: string, options: CommandOptions) =>
      runClientCommand(options, () => followBatch(openClient(options), batchId, options), describeFinal),
    );

  connectionOptions(batch.command('cancel'))
    .description('Stop admitting items: queued ones are cancelled, admitted ones not started are cancelled and refunded')
    .argument('<batchId>')
    .action((batchId: string, options: CommandOptions) =>
      runClientCommand(options, () => openClient(options).cancelBatch(batchId), (b) => `${b.batchId} ${b.status}: ${describeCounts(b)}`),
    );

  connectionOptions(batch.command('results'))
    .description('The results, one JSON line per item in line order (partial while it runs); --table for a table')
    .argument('<batchId>')
    .option('--table', 'one aligned row per item: line, customId, status, cost, output URLs or error')
    .option('--status <status>', `only items with this status: ${BATCH_ITEM_STATUSES.join(', ')}`)
    .action((batchId: string, options: CommandOptions & { table?: boolean; status?: string }) =>
      runClientCommand(options, () => printResults(openClient(options), batchId, options), () => ''),
    );

  connectionOptions(batch.command('download'))
    .description("Save the batch's outputs, named by customId, and results.jsonl as one ZIP")
    .argument('<batchId>')
    .option('-o, --out <file>', 'the ZIP to write (default: <batchId>.zip)')
    .action((batchId: string, options: CommandOptions & { out?: string }) =>
      runClientCommand(
        options,
        () => downloadArchive(openClient(options), batchId, options.out ?? `${batchId}.zip`),
        (r) => `saved ${r.file} (${r.bytes} bytes)`,
      ),
    );
}
