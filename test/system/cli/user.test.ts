/**
 * The user CLI as a person uses it: `genmedia run` in a real terminal (tmux) with its progress bar and saved files,
 * Ctrl-C on a pending job, and every command's --json output for scripts.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../../support/api';
import { CLI_BIN, runCli, type CliRun } from '../../support/cli';
import { createTestAccount, startTestStack, type TestAccount, type TestStack } from '../../support/stack';
import { Terminal } from '../../support/tmux';
import { olderMachineNodes, shellEnv } from '../../support/machineNode';
import { REPO_ROOT } from '../../../src/config';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
/** No worker serves lumina in this stack: its jobs stay pending. */
const NEVER_STARTS = 'lumina/lumi-xl/text-to-image';

let stack: TestStack;
let account: TestAccount;
const terminals: Terminal[] = [];

beforeAll(async () => {
  // Jobs of a few seconds, so the bar is seen moving.
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { providers: { timeScale: 0.15 } } });
  account = await createTestAccount(stack.prisma, { creditsMicroCents: 20_000_000n });
});

afterAll(async () => {
  await Promise.all(terminals.map((t) => t.close()));
  await stack?.stop();
});

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(os.tmpdir(), `genmedia-cli-${prefix}-`));
}

function userEnv(who: TestAccount | null = account, configDir = tempDir('config')): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GENMEDIA_BASE_URL: stack.url, GENMEDIA_CONFIG_DIR: configDir };
  if (who) env.GENMEDIA_API_KEY = who.apiKey;
  else delete env.GENMEDIA_API_KEY;
  return env;
}

/** `genmedia ...` without a terminal, as a script runs it. */
function cli(args: string[], env = userEnv(), input?: string): Promise<CliRun> {
  return runCli(args, { env, cwd: tempDir('cwd'), input });
}

async function inTerminal(args: string[], cwd: string, env = userEnv()): Promise<Terminal> {
  const terminal = await Terminal.start([process.execPath, CLI_BIN, ...args], { cwd, env });
  terminals.push(terminal);
  return terminal;
}

async function chargesOf(accountId: string) {
  return stack.prisma.ledgerEntry.findMany({ where: { accountId, kind: { in: ['charge', 'refund'] } }, orderBy: { id: 'asc' } });
}

describe('genmedia run in a terminal', () => {
  it('shows a live progress bar with status and the time left, then saves the PNGs', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const out = tempDir('out');
    const terminal = await inTerminal(['run', TEXT_TO_IMAGE, '-i', 'prompt=a lighthouse', '-i', 'num_images=2', '--out', 'pictures'], out, userEnv(who));

    const running = await terminal.waitFor(/[█░]{10,}\s+\d+% \| (pending|processing) \|/);
    expect(running).toMatch(/job job_\w+ submitted/);
    const moving = await terminal.waitFor(/[█░]{10,}\s+([1-9]\d?)% \| processing \| .*done in ~\d+s/);
    expect(moving).toBeTruthy();
    const done = await terminal.waitFor(/\[exit \d+\]/, 60_000);
    expect(done).toContain('[exit 0]');
    const jobId = done.match(/completed (job_\w+)/)?.[1];
    expect(jobId).toBeDefined();
    expect(done).toMatch(/2 output\(s\), charged \$0\.09/);
    expect(done).toContain(`saved pictures/${jobId}-1.png`);

    const files = readdirSync(path.join(out, 'pictures')).sort();
    expect(files).toEqual([`${jobId}-1.png`, `${jobId}-2.png`]);
    for (const file of files) {
      const meta = await sharp(readFileSync(path.join(out, 'pictures', file))).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    }
    const ledger = await chargesOf(who.accountId);
    expect(ledger.map((e) => [e.kind, e.jobId, Number(e.amountMicroCents)])).toEqual([['charge', jobId, -90_000]]);
  });

  it('Ctrl-C on a pending job asks, then cancels and refunds it', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const terminal = await inTerminal(['run', NEVER_STARTS, '-i', 'prompt=a lighthouse that never starts'], tempDir('out'), userEnv(who));
    const submitted = await terminal.waitFor(/job (job_\w+) submitted/);
    const jobId = submitted.match(/job (job_\w+) submitted/)![1];
    // Waiting, it shows its place in genmedia's line and the time left.
    await terminal.waitFor(/\d+% \| pending \| place 1 in line · .*done in ~(\d+m)?\d+s/);

    const cost = Number((await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).costMicroCents);
    const price = `$${(cost / 1_000_000).toFixed(6).replace(/(\.\d\d\d*?)0+$/, '$1')}`;

    await terminal.press('C-c');
    await terminal.waitFor(new RegExp(`Job ${jobId} has not started\\. Cancel it and refund \\${price}\\? \\[y/N\\]`));
    await terminal.press('y', 'Enter');
    const end = await terminal.waitFor(/\[exit \d+\]/);
    expect(end).toContain(`cancelled ${jobId}; refunded ${price}`);
    expect(end).toContain('[exit 130]');

    const job = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(job.status).toBe('cancelled');
    const ledger = await chargesOf(who.accountId);
    expect(ledger.map((e) => [e.kind, Number(e.amountMicroCents)])).toEqual([
      ['charge', -cost],
      ['refund', cost],
    ]);
  });

  it('Ctrl-C answered "no" keeps following the job', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const terminal = await inTerminal(['run', NEVER_STARTS, '-i', 'prompt=still waiting'], tempDir('out'), userEnv(who));
    const jobId = (await terminal.waitFor(/job (job_\w+) submitted/)).match(/job (job_\w+) submitted/)![1];
    await terminal.waitFor(/\d+% \| pending/);
    await terminal.press('C-c');
    await terminal.waitFor(/\[y\/N\]/);
    await terminal.press('n', 'Enter');
    await new Promise((r) => setTimeout(r, 1500));
    const screen = await terminal.screen();
    expect(screen).not.toMatch(/\[exit \d+\]/);
    expect(screen).toMatch(/\d+% \| pending/);
    expect((await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('pending');
    // Cancelled from elsewhere, the run ends with the job's outcome.
    expect((await post(`${stack.url}/v1/jobs/${jobId}/cancel`, who.apiKey)).status).toBe(200);
    const end = await terminal.waitFor(/\[exit \d+\]/);
    expect(end).toContain(`error: job ${jobId} was cancelled (JOB_CANCELLED)`);
    expect(end).toContain('[exit 1]');
  });
});

describe.skipIf(olderMachineNodes().length === 0)("npx genmedia in a terminal whose node is the machine's older one", () => {
  it('runs on the provided Node, and Ctrl-C on a pending job asks once, then cancels and refunds it', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    // As a person types it in the checkout: npx, the machine's PATH; the hand-over must not deliver Ctrl-C twice.
    const env = { ...shellEnv(userEnv(who)), npm_config_update_notifier: 'false' };
    const terminal = await Terminal.start(['npx', 'genmedia', 'run', NEVER_STARTS, '-i', 'prompt=an older node'], { cwd: REPO_ROOT, env });
    terminals.push(terminal);
    const jobId = (await terminal.waitFor(/job (job_\w+) submitted/, 60_000)).match(/job (job_\w+) submitted/)![1];
    await terminal.waitFor(/\d+% \| pending/);
    await terminal.press('C-c');
    await terminal.waitFor(/\[y\/N\]/);
    await new Promise((r) => setTimeout(r, 500));
    await terminal.press('y', 'Enter');
    const end = await terminal.waitFor(/\[exit \d+\]/);
    expect(end.match(/has not started\. Cancel it/g)).toHaveLength(1);
    expect(end).toMatch(new RegExp(`cancelled ${jobId}; refunded \\$`));
    expect(end).toContain('[exit 130]');
    expect(end).not.toMatch(/EBADENGINE|npm warn/);
    expect((await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).status).toBe('cancelled');
  });
});

describe('genmedia commands for scripts (--json)', () => {
  it('models ls and show list what the key can use, with prices and input fields', async () => {
    const list = await cli(['models', 'ls', '--json']);
    expect(list.code).toBe(0);
    expect(list.json.map((m: { id: string }) => m.id)).toContain(TEXT_TO_IMAGE);

    const show = await cli(['models', 'show', TEXT_TO_IMAGE]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain('version v2 (current): active, $0.045 per image');
    expect(show.stdout).toMatch(/-i num_images=<"1"\|"2"\|"3"\|"4"> {2}\(default "1"\)/);
    expect(show.stdout).toMatch(/-i prompt=<string> {2}\(required\)/);
  });

  it('estimate types -i values by the schema and prints what submit charges', async () => {
    const estimate = await cli(['estimate', TEXT_TO_IMAGE, '-i', 'prompt=x', '-i', 'num_images=3', '--json']);
    expect(estimate.code).toBe(0);
    const api = await post(`${stack.url}/v1/jobs/estimate`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'x', num_images: '3' } });
    expect(estimate.json).toEqual(api.body);
    expect(estimate.json.estimatedCostMicroCents).toBe(135_000);
    const human = await cli(['estimate', TEXT_TO_IMAGE, '-i', 'prompt=x', '-i', 'num_images=3']);
    expect(human.stdout).toMatch(/^estimated cost \$0\.135/);
  });

  it('run --json prints the finished job; jobs ls, get, cancel and delete work on it', async () => {
    const run = await cli(['run', TEXT_TO_IMAGE, '-i', 'prompt=scripted lighthouse', '--no-download', '--json']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.json.job).toMatchObject({ status: 'completed', model: TEXT_TO_IMAGE });
    expect(run.json.files).toEqual([]);
    const jobId = run.json.job.jobId;

    const listed = await cli(['jobs', 'ls', '--limit', '5', '--json']);
    expect(listed.json.jobs.map((j: { jobId: string }) => j.jobId)).toContain(jobId);
    const got = await cli(['jobs', 'get', jobId, '--json']);
    expect(got.json).toMatchObject({ jobId, status: 'completed', outputs: [expect.objectContaining({ contentType: 'image/png' })] });
    const human = await cli(['jobs', 'get', jobId]);
    expect(human.stdout).toMatch(new RegExp(`^${jobId}  completed 100%`));

    const cancel = await cli(['jobs', 'cancel', jobId, '--json']);
    expect(cancel.code).toBe(1);
    expect(cancel.json.error).toMatchObject({ code: 'JOB_CANNOT_BE_CANCELLED', status: 409, requestId: expect.any(String) });

    const deleted = await cli(['jobs', 'delete', jobId]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toMatch(new RegExp(`^erased ${jobId} \\(completed\\) at .+; outputs deleted at .+ \\(client\\)`));
    const erased = await cli(['jobs', 'get', jobId, '--json']);
    expect(erased.json).toMatchObject({ jobId, status: 'completed', input: {}, outputs: [], contentErasedAt: expect.any(String) });
  });

  it('jobs watch follows a job to its end and saves its outputs', async () => {
    const submitted = await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'watched' } });
    const out = tempDir('watch');
    const watch = await cli(['jobs', 'watch', submitted.body.jobId, '--out', out, '--json']);
    expect(watch.code).toBe(0);
    expect(watch.json.job).toMatchObject({ jobId: submitted.body.jobId, status: 'completed' });
    expect(watch.json.files).toEqual([path.join(out, `${submitted.body.jobId}-1.png`)]);
    expect(statSync(watch.json.files[0]).size).toBeGreaterThan(0);
  });

  it('asks before an expensive job; without a terminal it refuses unless --yes, and charges nothing', async () => {
    const who = await createTestAccount(stack.prisma, { creditsMicroCents: 5_000_000n });
    const refused = await cli(['run', TEXT_TO_IMAGE, '-i', 'prompt=x', '--confirm-over', '0.01', '--json'], userEnv(who));
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatchObject({ code: 'CONFIRMATION_REQUIRED' });
    expect(refused.json.error.message).toContain('$0.045');
    expect(await chargesOf(who.accountId)).toEqual([]);
  });

  it('upload prints a fileUrl that a job input can use', async () => {
    const dir = tempDir('upload');
    const file = path.join(dir, 'scene.png');
    writeFileSync(file, await sharp({ create: { width: 4, height: 4, channels: 3, background: '#123456' } }).png().toBuffer());
    const uploaded = await cli(['upload', file, '--json']);
    expect(uploaded.code).toBe(0);
    expect(uploaded.json.fileUrl).toMatch(/^http/);
    expect((await fetch(uploaded.json.fileUrl)).status).toBe(200);
  });

  it('reports API errors with their code and details, and usage errors as JSON', async () => {
    const bad = await cli(['run', TEXT_TO_IMAGE, '-i', 'prompt=x', '-i', 'size=enormous', '--yes']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .+ \((VALIDATION_ERROR|INVALID_INPUT)\)\n\s+.*size/m);
    expect(bad.stderr).toMatch(/request id: \S+/);

    const usage = await cli(['run', '--json']);
    expect(usage.code).not.toBe(0);
    expect(usage.json.error.code).toBe('INVALID_ARGUMENTS');
  });
});

describe('the key of npm run dev', () => {
  it('is used for an API on this machine when no other key is given, never for a remote one', async () => {
    const dataDir = tempDir('data');
    writeFileSync(path.join(dataDir, 'dev-api-key.json'), JSON.stringify({ accountId: account.accountId, apiKey: account.apiKey }));
    const env = { ...userEnv(null), GENMEDIA_DATA_DIR: dataDir };
    const local = await cli(['models', 'ls', '--json'], env);
    expect(local.code).toBe(0);
    expect(local.json.length).toBeGreaterThan(0);
    const remote = await cli(['models', 'ls', '--json', '--base-url', 'https://api.genmedia.example'], env);
    expect(remote.json.error.code).toBe('NO_API_KEY');
  });
});

describe('genmedia login', () => {
  it('checks the key, saves it readable by the user only, and later commands use it', async () => {
    const configDir = path.join(tempDir('login'), 'genmedia');
    const env = userEnv(null, configDir);
    const noKey = await cli(['models', 'ls', '--json'], env);
    expect(noKey.json.error.code).toBe('NO_API_KEY');

    const wrong = await cli(['login', '--json'], env, 'gm_not_a_real_key\n');
    expect(wrong.json.error).toMatchObject({ code: 'UNAUTHORIZED', status: 401 });
    expect(() => statSync(path.join(configDir, 'credentials.json'))).toThrow();

    const login = await cli(['login', '--json'], env, `${account.apiKey}\n`);
    expect(login.code).toBe(0);
    const file = path.join(configDir, 'credentials.json');
    expect(login.json.configFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ apiKey: account.apiKey, baseUrl: stack.url });

    const list = await cli(['models', 'ls', '--json'], env);
    expect(list.code).toBe(0);
    expect(list.json.length).toBeGreaterThan(0);
    expect((await cli(['logout', '--json'], env)).json).toEqual({ removed: true });
    expect((await cli(['models', 'ls', '--json'], env)).json.error.code).toBe('NO_API_KEY');
  });
});
