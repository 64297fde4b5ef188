/**
 * `npm run dev` as a person runs it: `node scripts/run.js dev` starts its own PostgreSQL, Temporal and MinIO, the API
 * and the workers, prints where everything is and a dev key that works, and Ctrl-C leaves nothing behind. Every port
 * and the data folder are moved aside so it never meets the test stack or a developer's own `npm run dev`.
 *
 * The first start also serves the quick starts of docs/compatible-apis.md, as written: only the address and the key
 * differ. The official `openai` Python SDK generates images through /openai/v1 and the official `replicate` client
 * runs a genmedia model through /replicate (plain http: it returns the output URLs, fetched with the key). Each
 * request is an ordinary job of the dev account, charged once in its ledger.
 *
 * Three starts in all: the first on the empty folder; one whose supervisor is killed; and the start after it, which
 * also runs Replicate and prints traces.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { request, waitForFinal } from '../../support/api';
import { ledgerJobIds } from '../../support/ledger';
import { runInPythonEnv } from '../../support/python';
import { freeRestartPorts } from '../../support/restartPort';
import { startReplicateFake } from '../../support/upstreams/replicate';

/** What the test harness exports for the tests; the dev stack must not see any of it. */
const HARNESS_VARIABLES = [
  'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_CLI_PATH', 'TEMPORAL_UI_URL', 'MINIO_ENDPOINT',
  'MINIO_ACCESS_KEY', 'MINIO_SECRET_KEY', 'GENMEDIA_TEST_TUNING', 'NODE_ENV', 'LOG_LEVEL', 'GENMEDIA_DATA_DIR',
  'DOCKER_COMPOSE_CLI', 'CHROMIUM_PATH',
];

interface Ports {
  PORT: number;
  PG_PORT: number;
  TEMPORAL_PORT: number;
  TEMPORAL_UI_PORT: number;
  MINIO_PORT: number;
  MINIO_CONSOLE_PORT: number;
  CONSOLE_HMR_PORT: number;
}

interface DevRun {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const PNG_HEAD = '89504e47';

let dataDir: string;
let ports: Ports;
let devKey: string;
const runs: DevRun[] = [];
/** The first start on the empty data folder: the quick starts and the first test share it. */
let firstRun: DevRun | undefined;
const firstStart = (): DevRun => (firstRun ??= startDev());
/** The start after a killed supervisor, which the test after it goes on with. */
let restarted: DevRun | undefined;
let restartSummary: string | undefined;
let replicate: Awaited<ReturnType<typeof startReplicateFake>> | undefined;


/**
 * Seven distinct ports. The stack is killed and started again on the same ones, so they come from below the
 * ephemeral range: none can be handed to another file's process in between.
 */
async function freePorts(): Promise<Ports> {
  const [PORT, PG_PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT, MINIO_PORT, MINIO_CONSOLE_PORT, CONSOLE_HMR_PORT] = await freeRestartPorts(7);
  return { PORT, PG_PORT, TEMPORAL_PORT, TEMPORAL_UI_PORT, MINIO_PORT, MINIO_CONSOLE_PORT, CONSOLE_HMR_PORT } as Ports;
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

function devEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, NO_COLOR: '1', GENMEDIA_DATA_DIR: dataDir };
  for (const name of HARNESS_VARIABLES) if (name !== 'GENMEDIA_DATA_DIR') delete env[name];
  for (const [name, port] of Object.entries(ports)) env[name] = String(port);
  return env;
}

/** `npm run dev` in its own process group, as a terminal would run it; its output is collected. */
function startDev(extraEnv: Record<string, string> = {}): DevRun {
  const child = spawn(process.execPath, ['scripts/run.js', 'dev'], {
    cwd: REPO_ROOT,
    env: devEnv(extraEnv),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const run = { child, output: () => text, exited };
  runs.push(run);
  return run;
}

const running = (run: DevRun) => run.child.exitCode === null && run.child.signalCode === null;

/** The printed summary, once the stack says it is up; fails early with the output when the process ends first. */
async function waitForSummary(run: DevRun, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = run.output();
    const start = text.indexOf('genmedia dev stack is up');
    if (start >= 0 && text.indexOf('Ctrl-C stops everything.', start) > 0) return text.slice(start);
    if (!running(run)) throw new Error(`npm run dev exited with ${run.child.exitCode} before it was up:\n${text.slice(-4000)}`);
    if (Date.now() > deadline) throw new Error(`npm run dev not up within ${timeoutMs / 1000}s:\n${text.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function summaryValue(summary: string, label: string): string {
  const match = new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm').exec(summary);
  if (!match) throw new Error(`the summary has no "${label}" line:\n${summary}`);
  return match[1];
}

function executableOf(pid: number): string | null {
  try {
    return fs.realpathSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** Processes whose command line or environment mentions the data folder: everything the dev stack started. */
function processesOfDataDir(): { pid: number; command: string }[] {
  const found: { pid: number; command: string }[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (command.includes(dataDir) || environ.includes(`GENMEDIA_DATA_DIR=${dataDir}\0`)) found.push({ pid, command });
    } catch {
      // gone meanwhile, or not readable
    }
  }
  return found;
}

/** Ctrl-C in the terminal: SIGINT to the process group; resolves with the exit code. */
async function interrupt(run: DevRun, timeoutMs: number): Promise<number | null> {
  process.kill(-run.child.pid!, 'SIGINT');
  const code = await Promise.race([run.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs))]);
  if (code === 'timeout') throw new Error(`npm run dev still running ${timeoutMs / 1000}s after Ctrl-C:\n${run.output().slice(-3000)}`);
  return code;
}

async function busyPorts(): Promise<number[]> {
  const busy: number[] = [];
  for (const port of Object.values(ports)) if (!(await isPortFree(port))) busy.push(port);
  return busy;
}

/** No process of the data folder and no port of the stack is left; a short grace covers the kernel reaping them. */
async function expectEverythingGone(): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (processesOfDataDir().length > 0 || (await busyPorts()).length > 0)) {
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(processesOfDataDir().map((p) => `${p.pid} ${p.command}`)).toEqual([]);
  expect(await busyPorts()).toEqual([]);
}

/**
 * The ```python block of docs/compatible-apis.md that contains `marker`, pointed at this stack: the documented
 * address and key placeholder replaced by the dev stack's, nothing else changed.
 */
function documentedSnippet(marker: string, api: string, key: string): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs', 'compatible-apis.md'), 'utf8');
  const block = [...doc.matchAll(/```python\n([\s\S]*?)```/g)].map((match) => match[1]).find((code) => code.includes(marker));
  if (!block) throw new Error(`docs/compatible-apis.md has no python block with ${marker}`);
  return block.replaceAll('http://127.0.0.1:3000', api).replaceAll('<your genmedia API key>', key);
}

/** Runs a documented snippet with the Python clients in a folder of its own; resolves with its stdout and that folder. */
async function runSnippet(code: string): Promise<{ stdout: string; cwd: string }> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-snippet-'));
  fs.writeFileSync(path.join(cwd, 'snippet.py'), code);
  const run = await runInPythonEnv('python', ['snippet.py'], { cwd, timeoutMs: 90_000 });
  if (run.code !== 0) throw new Error(`the documented snippet exited with ${run.code}:\n${run.stderr}\n${run.stdout}\n${code}`);
  return { stdout: run.stdout, cwd };
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-dev-test-'));
  fs.chmodSync(dataDir, 0o755); // the postgres system user must reach its cluster inside
  ports = await freePorts();
});

afterAll(async () => {
  await replicate?.close();
  // Whatever a failed test left running: the supervisor first, then anything of the data folder by pid.
  for (const run of runs) {
    if (!running(run)) continue;
    try {
      process.kill(-run.child.pid!, 'SIGINT');
    } catch {
      // already gone
    }
    await Promise.race([run.exited, new Promise((r) => setTimeout(r, 30_000))]);
    if (running(run)) run.child.kill('SIGKILL');
  }
  if (dataDir) {
    for (const { pid } of processesOfDataDir()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}, 60_000);

describe("docs/compatible-apis.md's quick starts against npm run dev", () => {
  it('the openai SDK generates images and replicate.run runs forge-pro, changing only the base URL and key; each job charged once', async () => {
    const summary = await waitForSummary(firstStart(), 150_000);
    const api = summaryValue(summary, 'API');
    const key = summaryValue(summary, 'Dev API key');
    expect(summaryValue(summary, 'OpenAI API')).toBe(`${api}/openai/v1`);
    expect(summaryValue(summary, 'Replicate API')).toBe(`${api}/replicate`);

    const openAi = await runSnippet(documentedSnippet('base_url="http://127.0.0.1:3000/openai/v1"', api, key));
    const imageUrls = [...openAi.stdout.matchAll(/'(https?:\/\/[^']+)'/g)].map((match) => match[1]);
    expect(imageUrls, openAi.stdout).toHaveLength(2);
    for (const url of imageUrls) {
      const image = await fetch(url);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer()).subarray(0, 4).toString('hex')).toBe(PNG_HEAD);
    }
    expect(openAi.stdout).toContain("'forge-pro'");

    const replicateRun = await runSnippet(documentedSnippet('base_url="http://127.0.0.1:3000/replicate"', api, key));
    expect(fs.readdirSync(replicateRun.cwd).filter((name) => name.endsWith('.png'))).toEqual(['lighthouse-0.png']);
    expect(fs.readFileSync(path.join(replicateRun.cwd, 'lighthouse-0.png')).subarray(0, 4).toString('hex')).toBe(PNG_HEAD);
    for (const { cwd } of [openAi, replicateRun]) fs.rmSync(cwd, { recursive: true, force: true });

    // Two ordinary jobs of the new dev account (the OpenAI request made both images in one), each charged once.
    const listed = await request(`${api}/v1/jobs?limit=100`, { headers: { authorization: `Bearer ${key}` } });
    expect(listed.status).toBe(200);
    const jobs = listed.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => [job.model, job.status])).toEqual([
      ['pixelforge/forge-pro/text-to-image', 'completed'],
      ['pixelforge/forge-pro/text-to-image', 'completed'],
    ]);
    expect(await ledgerJobIds(api, key, 'charge')).toEqual(jobs.map((job) => job.jobId).sort());
    expect(await ledgerJobIds(api, key, 'refund')).toEqual([]);
  }, 300_000);
});

describe('npm run dev', () => {
  it('prints working URLs and a dev key, runs a job with it, and Ctrl-C stops every child', async () => {
    const run = firstStart();
    const summary = await waitForSummary(run, 150_000);

    const api = `http://127.0.0.1:${ports.PORT}`;
    expect(summaryValue(summary, 'API')).toBe(api);
    expect(summaryValue(summary, 'Temporal UI')).toBe(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}`);
    expect(summaryValue(summary, 'MinIO console')).toBe(`http://127.0.0.1:${ports.MINIO_CONSOLE_PORT}`);
    devKey = summaryValue(summary, 'Dev API key');
    expect(devKey.length).toBeGreaterThan(20);

    expect((await request(`${api}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`)).status).toBe(200);
    const consolePage = await fetch(`http://127.0.0.1:${ports.MINIO_CONSOLE_PORT}/`);
    expect(consolePage.status).toBe(200);
    expect(await consolePage.text()).toMatch(/MinIO/i);

    // The console from its sources through Vite (hot reload), the dev key filled in for the first sign-in.
    expect(summaryValue(summary, 'Console')).toMatch(new RegExp(`^${api}/console/`));
    const consoleHtml = await (await fetch(`${api}/console/`)).text();
    expect(consoleHtml).toContain(`<meta name="genmedia-dev-key" content="${devKey}" />`);
    expect(consoleHtml).toContain('/console/@vite/client');

    // The dev admin key works on the operator API, and the admin CLI on this machine finds it with no setting.
    const adminKey = summaryValue(summary, 'Dev admin key');
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'dev-admin-key.json'), 'utf8')).apiKey).toBe(adminKey);
    expect((await request(`${api}/v1/admin/accounts?limit=1`, { headers: { authorization: `Bearer ${adminKey}` } })).status).toBe(200);
    expect((await request(`${api}/v1/admin/accounts?limit=1`, { headers: { authorization: `Bearer ${devKey}` } })).status).toBe(403);

    const models = await request(`${api}/v1/models`, { headers: { 'x-api-key': devKey } });
    expect(models.status).toBe(200);
    expect(models.body.models.map((m: { id: string }) => m.id)).toContain('pixelforge/forge-pro/text-to-image');

    const submitted = await request(`${api}/v1/jobs/submit`, {
      method: 'POST',
      headers: { authorization: `Bearer ${devKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'a lighthouse on the dev stack' } }),
    });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const job = await waitForFinal({ url: api }, devKey, submitted.body.jobId, 30_000);
    expect(job.status, JSON.stringify(job.error)).toBe('completed');
    expect(job.outputs).toHaveLength(1);
    expect((await fetch(job.outputs[0].url)).status).toBe(200);

    // The dialects' base URLs, for the official SDKs (the quick starts above run them).
    expect(summaryValue(summary, 'OpenAI API')).toBe(`${api}/openai/v1`);
    expect(summaryValue(summary, 'Replicate API')).toBe(`${api}/replicate`);

    // The stack really is the data folder's: its infrastructure and the API and workers all point at it.
    const started = processesOfDataDir();
    expect(started.length, started.map((p) => p.command).join('\n')).toBeGreaterThanOrEqual(7);

    // The API and every worker run on the Node that runs the supervisor (24 or later, scripts/lib/reexec.js).
    const nodeProcesses = started.map(({ pid, command }) => ({ command, exe: executableOf(pid) })).filter((p) => path.basename(p.exe ?? '') === 'node');
    expect(nodeProcesses.length, started.map((p) => p.command).join('\n')).toBeGreaterThanOrEqual(3);
    for (const { command, exe } of nodeProcesses) expect(exe, command).toBe(fs.realpathSync(process.execPath));
    const metrics = await (await fetch(`${api}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`^genmedia_nodejs_version_info\\{version="${process.version}",major="${process.versions.node.split('.')[0]}",`, 'm'));

    const stoppedAt = Date.now();
    expect(await interrupt(run, 30_000)).toBe(0);
    await expectEverythingGone();
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    expect(run.output()).toContain('everything stopped');
  }, 200_000);

  it('after its supervisor is killed, the next start stops what it left running; a second stack on the folder is refused', async () => {
    expect(devKey, 'the first start printed no key').toBeDefined();
    const crashed = startDev();
    await waitForSummary(crashed, 150_000);
    const before = processesOfDataDir();
    expect(before.length).toBeGreaterThanOrEqual(7);

    // An OOM kill or SIGKILL of the supervisor alone: its children live on and hold the ports.
    process.kill(crashed.child.pid!, 'SIGKILL');
    await crashed.exited;
    await new Promise((r) => setTimeout(r, 1_000));
    expect(processesOfDataDir().length).toBeGreaterThanOrEqual(6);
    expect((await busyPorts()).length).toBeGreaterThan(0);

    // The next start is the one the next test uses: a Replicate key alone, and traces printed to the console.
    replicate = await startReplicateFake();
    // docs/observability.md: OTEL_TRACES_EXPORTER=console npm run dev. The Temporal dev server refuses that
    // exporter, so it must reach only the API and the workers.
    // The fake serves its output files on this machine, which the address guard refuses unless told otherwise.
    restarted = startDev({ ...replicate.env, INPUT_FETCH_ALLOW_PRIVATE: '1', OTEL_TRACES_EXPORTER: 'console' });
    restartSummary = await waitForSummary(restarted, 150_000);
    expect(restarted.output()).toMatch(/stopped what an earlier npm run dev left running: .*postgres/);
    const survivors = before.filter(({ pid, command }) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim() === command;
      } catch {
        return false;
      }
    });
    expect(survivors.map((p) => p.command)).toEqual([]);
    expect((await request(`http://127.0.0.1:${ports.PORT}/readyz`)).status).toBe(200);

    const second = startDev();
    expect(await second.exited).not.toBe(0);
    expect(second.output()).toMatch(/npm run dev is already running on/);
  }, 300_000);

  it('a later start reuses the data folder and prints the same dev key; a Replicate key alone turns Replicate on; traces print to the console as documented', async () => {
    expect(restarted, 'the restart of the test before did not run').toBeDefined();
    const run = restarted!;
    try {
      expect(fs.existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).toBe(true);
      const summary = restartSummary!;
      expect(summaryValue(summary, 'Dev API key')).toBe(devKey);
      expect(run.output()).not.toContain('postgres: created cluster');
      // The workflows are as the first start bundled them (tracing does not change their code): no bundler runs.
      expect(run.output()).toMatch(/^\[worker:workflows\].*workflow bundle of unchanged sources reused/m);

      const api = `http://127.0.0.1:${ports.PORT}`;
      const submitted = await request(`${api}/v1/jobs/submit`, {
        method: 'POST',
        headers: { authorization: `Bearer ${devKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'replicate/flux-schnell/text-to-image', input: { prompt: 'a lighthouse through Replicate' } }),
      });
      expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
      const job = await waitForFinal({ url: api }, devKey, submitted.body.jobId, 60_000);
      expect(job.status, JSON.stringify(job.error)).toBe('completed');
      expect(job.upstream.id).toBe(replicate!.predictions()[0]!.id);
      const output = await fetch(job.outputs[0].url);
      expect(output.status).toBe(200);
      expect(output.headers.get('content-type')).toBe('image/png');
      expect(run.output()).toMatch(/worker:replicate/);
      expect(run.output()).not.toMatch(/worker:fal\b/);
      // The submit's server span from the API, the upstream activity's from the Replicate worker.
      expect(run.output()).toMatch(/^\[api\] +name: 'POST \/v1\/jobs\/submit',$/m);
      expect(run.output()).toMatch(/^\[worker:replicate\] +name: 'RunActivity:startGeneration',$/m);

      expect(await interrupt(run, 30_000)).toBe(0);
      await expectEverythingGone();
      expect(fs.existsSync(path.join(dataDir, 'dev-processes.json'))).toBe(false);
    } finally {
      await replicate?.close();
      replicate = undefined;
    }
  }, 200_000);
});
