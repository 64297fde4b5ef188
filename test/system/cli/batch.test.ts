/**
 * `genmedia batch` as a person uses it: submit --wait in a real terminal (tmux) with its progress bar of done, failed,
 * cost and ETA; then the results as JSONL and as a table, the ZIP of outputs, and the other batch commands for scripts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, runCli, type CliRun } from '../../support/cli';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { Terminal } from '../../support/tmux';

const MODEL = 'pixelforge/forge-pro/text-to-image';
/** No worker serves this provider in these tests. */
const NEVER_STARTS = 'lumina/lumi-xl/text-to-image';
const PRICE = 45_000;

let stack: TestStack;
const terminals: Terminal[] = [];

beforeAll(async () => {
  // Items of a few seconds each, so the bar is seen moving with an ETA.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 0.15 }, batches: { roundIntervalMs: 200 } } });
});

afterAll(async () => {
  await Promise.all(terminals.map((t) => t.close()));
  await stack?.stop();
});

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `genmedia-cli-batch-${prefix}-`));
}

function userEnv(who: TestAccount): NodeJS.ProcessEnv {
  return { ...process.env, GENMEDIA_BASE_URL: stack.url, GENMEDIA_API_KEY: who.apiKey, GENMEDIA_CONFIG_DIR: tempDir('config') };
}

function cli(args: string[], who: TestAccount, cwd = tempDir('cwd')): Promise<CliRun> {
  return runCli(args, { env: userEnv(who), cwd });
}

/** A JSONL file of `count` lines; the lines in `failing` carry the built-in models' failure token. */
function batchFile(dir: string, count: number, failing: number[], separator = '\n'): string {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ customId: `sku-${i + 1}`, model: MODEL, input: { prompt: failing.includes(i + 1) ? 'broken [fail:permanent]' : `item ${i + 1}` } }),
  );
  const file = path.join(dir, 'lines.jsonl');
  writeFileSync(file, lines.join(separator) + '\n');
  return file;
}

/** The entries of a ZIP, as Python's zipfile reads them (an independent reader). */
function zipEntries(file: string): string[] {
  const script = 'import sys, zipfile, json; print(json.dumps(sorted(i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist())))';
  return JSON.parse(execFileSync('python3', ['-c', script, file]).toString()) as string[];
}

describe('genmedia batch submit --wait in a terminal', () => {
  it('draws the bar with done, failed, cost and ETA until every item is final; results and download follow', async () => {
    // Batch items hold at most half the account's slots: four at a time.
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n, maxConcurrentJobs: 8 });
    const dir = tempDir('wait');
    batchFile(dir, 10, [4]);
    const terminal = await Terminal.start([process.execPath, CLI_BIN, 'batch', 'submit', 'lines.jsonl', '--wait'], { cwd: dir, env: userEnv(who) });
    terminals.push(terminal);

    const submitted = await terminal.waitFor(/batch (bat_\w+) submitted: 10 item\(s\), estimated \$0\.45/);
    const batchId = submitted.match(/batch (bat_\w+) submitted/)![1]!;
    await terminal.waitFor(/[█░]{10,}\s+\d+% \| running \| \d+\/10 final · \d+ done · \d+ failed · \$[\d.]+/);
    // Once an item is final the pace is known, and the ETA counts down beside the bar.
    await terminal.waitFor(/[█░]{10,}\s+\d+% \| running \| [1-9]\/10 final · .* · ETA (\d+m)?\d+s/, 60_000);
    const end = await terminal.waitFor(/\[exit \d+\]/, 90_000);
    expect(end).toMatch(/[█]{30}\s+100% \| completed \| 10\/10 final · 9 done · 1 failed · \$0\.405/);
    expect(end).toContain(`${batchId} completed: 10/10 final · 9 done · 1 failed · $0.405`);
    // An item that did not complete makes the exit status 1.
    expect(end).toContain('[exit 1]');

    const results = await cli(['batch', 'results', batchId], who);
    expect(results.code).toBe(0);
    const lines = results.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.line, l.customId, l.status])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i + 1, `sku-${i + 1}`, i + 1 === 4 ? 'failed' : 'completed']),
    );
    expect(lines[0]).toMatchObject({ jobId: expect.stringMatching(/^job_/), costMicroCents: PRICE, outputs: [expect.objectContaining({ contentType: 'image/png' })] });
    expect(lines[3]).toMatchObject({ costMicroCents: 0, outputs: [], error: { code: expect.any(String) } });
    const jobs = await stack.prisma.job.findMany({ where: { batchId } });
    expect(Object.fromEntries(lines.map((l) => [l.customId, l.jobId]))).toEqual(Object.fromEntries(jobs.map((j) => [j.customId, j.id])));

    const table = await cli(['batch', 'results', batchId, '--table', '--status', 'failed'], who);
    expect(table.stdout.split('\n')[0]).toMatch(/^\s+line {2}customId\s+status\s+cost {2}outputs or error$/);
    expect(table.stdout.trim().split('\n')).toHaveLength(2);
    expect(table.stdout).toMatch(/^\s+4 {2}sku-4\s+failed\s+\$0\.00\s+\w+: /m);

    const download = await cli(['batch', 'download', batchId, '-o', 'outputs.zip'], who, dir);
    expect(download.code).toBe(0);
    expect(download.stdout).toMatch(/^saved outputs\.zip \(\d+ bytes\)/);
    const entries = zipEntries(path.join(dir, 'outputs.zip'));
    expect(entries).toEqual([...Array.from({ length: 10 }, (_, i) => i + 1).filter((n) => n !== 4).map((n) => `sku-${n}.png`), 'results.jsonl'].sort());
  }, 180_000);

  it('Ctrl-C stops following and leaves the batch running', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const dir = tempDir('ctrl-c');
    // No worker serves lumina in this stack: its items are admitted and never start.
    writeFileSync(path.join(dir, 'lines.jsonl'), JSON.stringify({ customId: 'waits', model: NEVER_STARTS, input: { prompt: 'never starts' } }) + '\n');
    const terminal = await Terminal.start([process.execPath, CLI_BIN, 'batch', 'submit', 'lines.jsonl', '--wait'], { cwd: dir, env: userEnv(who) });
    terminals.push(terminal);
    const batchId = (await terminal.waitFor(/batch (bat_\w+) submitted/)).match(/batch (bat_\w+) submitted/)![1]!;
    await terminal.waitFor(/\d+% \| running \| 0\/1 final/);
    await terminal.press('C-c');
    const end = await terminal.waitFor(/\[exit \d+\]/);
    expect(end).toContain(`batch ${batchId} is running and goes on; follow it with: genmedia batch watch ${batchId}`);
    expect(end).toContain('[exit 130]');
    expect((await stack.prisma.batch.findUniqueOrThrow({ where: { id: batchId } })).status).toBe('running');
  }, 60_000);
});

describe('genmedia batch commands for scripts', () => {
  it('uploads a file it cannot send inline, prints the id alone, and get, ls, cancel and results answer for it', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n, maxConcurrentJobs: 4 });
    const dir = tempDir('upload');
    // A blank line keeps its number only in an uploaded file, so this one goes through the presigned flow.
    const file = batchFile(dir, 3, [], '\n\n');
    const estimate = await cli(['batch', 'estimate', file, '--json'], who);
    expect(estimate.json).toMatchObject({ itemCount: 3, estimatedCostMicroCents: 3 * PRICE, byModel: [{ model: MODEL, items: 3 }] });

    const submit = await cli(['batch', 'submit', file], who);
    expect(submit.code).toBe(0);
    const batchId = submit.stdout.trim();
    expect(batchId).toMatch(/^bat_\w+$/);
    expect(submit.stderr).toContain(`batch ${batchId} submitted: 3 item(s), estimated $0.135`);

    const got = await cli(['batch', 'get', batchId, '--json'], who);
    expect(got.json).toMatchObject({ batchId, source: 'upload', counts: { total: 3 } });
    const listed = await cli(['batch', 'list', '--json'], who);
    expect(listed.json.batches.map((b: { batchId: string }) => b.batchId)).toEqual([batchId]);

    const watched = await cli(['batch', 'watch', batchId, '--json'], who);
    expect(watched.code).toBe(0);
    expect(watched.json).toMatchObject({ batchId, status: 'completed', counts: { completed: 3 }, costMicroCents: 3 * PRICE });
    const results = await cli(['batch', 'results', batchId, '--json'], who);
    // Line numbers are the file's: the blank lines between the items count.
    expect(results.json.results.map((r: { line: number; status: string }) => [r.line, r.status])).toEqual([
      [1, 'completed'],
      [3, 'completed'],
      [5, 'completed'],
    ]);
    const cancel = await cli(['batch', 'cancel', batchId, '--json'], who);
    expect(cancel.code).toBe(1);
    expect(cancel.json.error).toMatchObject({ code: 'BATCH_CANNOT_BE_CANCELLED', status: 409 });
  }, 120_000);

  it('asks before a batch estimated above the threshold; without a terminal it refuses unless --yes', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const file = batchFile(tempDir('confirm'), 3, []);
    const refused = await cli(['batch', 'submit', file, '--confirm-over', '0.10', '--json'], who);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(refused.json.error.message).toContain('this batch costs $0.135, above $0.10');
    expect(await stack.prisma.batch.count({ where: { accountId: who.accountId } })).toBe(0);

    const accepted = await cli(['batch', 'submit', file, '--confirm-over', '0.10', '--yes', '--json'], who);
    expect(accepted.code).toBe(0);
    expect(accepted.json).toMatchObject({ batchId: expect.stringMatching(/^bat_/), status: 'running', counts: { total: 3 } });
  }, 60_000);

  it('refuses a file with invalid lines with each line named, and charges nothing', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const dir = tempDir('invalid');
    const file = path.join(dir, 'lines.jsonl');
    writeFileSync(file, [JSON.stringify({ customId: 'ok', model: MODEL, input: { prompt: 'fine' } }), '{"customId": "bad", "model": "nobody/nothing", "input": {}}'].join('\n'));
    const refused = await cli(['batch', 'submit', file], who);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error: .+ \(BATCH_INVALID_LINES\)/);
    expect(refused.stderr).toMatch(/line 2 \(bad\): MODEL_NOT_FOUND/);
    expect(await stack.prisma.batch.count({ where: { accountId: who.accountId } })).toBe(0);
    expect(readFileSync(file, 'utf8')).toContain('nobody/nothing');
  }, 60_000);
});
