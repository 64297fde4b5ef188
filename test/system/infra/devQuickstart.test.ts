/**
 * The quick starts of docs/compatible-apis.md, as written, against `npm run dev` as a person starts it: only the
 * address and the key differ. The official `openai` Python SDK generates images through /openai/v1 and the official
 * `replicate` client runs a genmedia model through /replicate (plain http: it returns the output URLs, fetched with
 * the key). Each request is an ordinary job of the dev account, charged once in its ledger. The stack's ports and data
 * folder are moved aside, as in test/integration/infra/dev.test.ts, so it never meets the test stack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { request } from '../../support/api';
import { ledgerJobIds } from '../../support/ledger';
import { runInPythonEnv } from '../../support/python';

/** What the test harness exports for the tests; the dev stack must not see any of it. */
const HARNESS_VARIABLES = [
  'DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'TEMPORAL_CLI_PATH', 'TEMPORAL_UI_URL', 'MINIO_ENDPOINT',
  'MINIO_ROOT_USER', 'MINIO_ROOT_PASSWORD', 'PROVIDER_TIME_SCALE', 'NODE_ENV', 'LOG_LEVEL', 'DOCKER_COMPOSE_CLI', 'CHROMIUM_PATH',
];
const PORT_VARIABLES = ['PORT', 'PG_PORT', 'TEMPORAL_PORT', 'TEMPORAL_UI_PORT', 'MINIO_PORT', 'MINIO_CONSOLE_PORT', 'CONSOLE_HMR_PORT'];
/** Default ports of other stacks on this machine (see scripts/lib/ports.js); never chosen here. */
const RESERVED_PORTS = new Set([3000, 54329, 7233, 8233, 9000, 9001, 55432, 7300, 8300, 9100, 9101]);
const PNG_HEAD = '89504e47';

let dataDir: string;
let dev: ChildProcess | undefined;
let output = '';
let exited: Promise<number | null>;

/** Distinct free ports, all held open while choosing so none is handed out twice. */
async function freePorts(count: number): Promise<number[]> {
  const held: net.Server[] = [];
  const chosen: number[] = [];
  try {
    while (chosen.length < count) {
      const server = await new Promise<net.Server>((resolve, reject) => {
        const s = net.createServer();
        s.once('error', reject);
        s.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => resolve(s));
      });
      held.push(server);
      const { port } = server.address() as net.AddressInfo;
      if (!RESERVED_PORTS.has(port)) chosen.push(port);
    }
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
  return chosen;
}

/** The printed summary, once the stack says it is up. */
async function waitForSummary(timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const start = output.indexOf('genmedia dev stack is up');
    if (start >= 0 && output.indexOf('Ctrl-C stops everything.', start) > 0) return output.slice(start);
    if (dev?.exitCode !== null) throw new Error(`npm run dev exited before it was up:\n${output.slice(-4000)}`);
    if (Date.now() > deadline) throw new Error(`npm run dev not up within ${timeoutMs / 1000}s:\n${output.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function summaryValue(summary: string, label: string): string {
  const match = new RegExp(`^\\s*${label}\\s+(\\S+)`, 'm').exec(summary);
  if (!match) throw new Error(`the summary has no "${label}" line:\n${summary}`);
  return match[1];
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
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-dev-quickstart-'));
  fs.chmodSync(dataDir, 0o755); // the postgres system user must reach its cluster inside
  const ports = await freePorts(PORT_VARIABLES.length);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', GENMEDIA_DATA_DIR: dataDir };
  for (const name of HARNESS_VARIABLES) delete env[name];
  PORT_VARIABLES.forEach((name, i) => (env[name] = String(ports[i])));
  // In its own process group, as a terminal runs it; Ctrl-C (SIGINT to the group) stops it.
  dev = spawn(process.execPath, ['scripts/run.js', 'dev'], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  exited = new Promise((resolve) => dev!.once('exit', (code) => resolve(code)));
}, 30_000);

afterAll(async () => {
  if (dev && dev.exitCode === null && dev.signalCode === null) {
    process.kill(-dev.pid!, 'SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 60_000))]);
    if (dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid!, 'SIGKILL');
  }
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

describe("docs/compatible-apis.md's quick starts against npm run dev", () => {
  it('the openai SDK generates images and replicate.run runs forge-pro, changing only the base URL and key; each job charged once', async () => {
    const summary = await waitForSummary(150_000);
    const api = summaryValue(summary, 'API');
    const devKey = summaryValue(summary, 'Dev API key');
    expect(summaryValue(summary, 'OpenAI API')).toBe(`${api}/openai/v1`);
    expect(summaryValue(summary, 'Replicate API')).toBe(`${api}/replicate`);

    const openAi = await runSnippet(documentedSnippet('base_url="http://127.0.0.1:3000/openai/v1"', api, devKey));
    const imageUrls = [...openAi.stdout.matchAll(/'(https?:\/\/[^']+)'/g)].map((match) => match[1]);
    expect(imageUrls, openAi.stdout).toHaveLength(2);
    for (const url of imageUrls) {
      const image = await fetch(url);
      expect(image.status).toBe(200);
      expect(Buffer.from(await image.arrayBuffer()).subarray(0, 4).toString('hex')).toBe(PNG_HEAD);
    }
    expect(openAi.stdout).toContain("'forge-pro'");

    const replicateRun = await runSnippet(documentedSnippet('base_url="http://127.0.0.1:3000/replicate"', api, devKey));
    expect(fs.readdirSync(replicateRun.cwd).filter((name) => name.endsWith('.png'))).toEqual(['lighthouse-0.png']);
    expect(fs.readFileSync(path.join(replicateRun.cwd, 'lighthouse-0.png')).subarray(0, 4).toString('hex')).toBe(PNG_HEAD);
    for (const { cwd } of [openAi, replicateRun]) fs.rmSync(cwd, { recursive: true, force: true });

    // Two ordinary jobs of the dev account (the OpenAI request made both images in one), each charged once.
    const listed = await request(`${api}/v1/jobs?limit=100`, { headers: { authorization: `Bearer ${devKey}` } });
    expect(listed.status).toBe(200);
    const jobs = listed.body.jobs as { jobId: string; model: string; status: string }[];
    expect(jobs.map((job) => [job.model, job.status])).toEqual([
      ['pixelforge/forge-pro/text-to-image', 'completed'],
      ['pixelforge/forge-pro/text-to-image', 'completed'],
    ]);
    expect(await ledgerJobIds(api, devKey, 'charge')).toEqual(jobs.map((job) => job.jobId).sort());
    expect(await ledgerJobIds(api, devKey, 'refund')).toEqual([]);

    process.kill(-dev!.pid!, 'SIGINT');
    expect(await exited).toBe(0);
  }, 300_000);
});
