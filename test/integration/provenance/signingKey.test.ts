/**
 * The signing key of Content Credentials is read only where outputs are signed, in the provider workers: the API and
 * the workflow worker start without it (and with a key file that cannot be read, or a key that is no key, since they
 * never look), a job runs through them to a signed output, and a provider worker without it does not start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../src/config';
import { get, post, waitForFinal } from '../../support/api';
import { sigkill, spawnApiProcess, spawnWorkflowWorker, type ApiProcess } from '../../support/processes';
import { untilPolling } from '../../support/pollers';
import { createTestAccount, eventually, startTestStack, workerProcessEnv, type TestStack } from '../../support/stack';
import { createChain, provenanceEnv, type ChainFiles } from '../../support/provenanceChain';
import { builtArgs } from '../../support/build';

let dir: string;
let chain: ChainFiles;
let stack: TestStack;
let api: ApiProcess;
const children: ChildProcess[] = [];

/** The chain and its trust anchors, without the key: what the API and the workflow worker are given. */
const chainOnly = () => ({ PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_TRUST_ANCHORS: chain.rootFile });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-signing-key-'));
  chain = createChain(path.join(dir, 'chain'));
  // The stack's own provider worker signs with the key; its API and the processes below do not have it.
  stack = await startTestStack({ workflowWorker: false, providers: ['pixelforge'], env: provenanceEnv(chain) });
  api = await spawnApiProcess(stack.config, { ...chainOnly(), PROVENANCE_PRIVATE_KEY: path.join(dir, 'no-such-key.pem') });
  children.push(api.child);
  const workflowWorker = spawnWorkflowWorker(stack.config, { ...chainOnly(), PROVENANCE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nnot a key\\n-----END PRIVATE KEY-----' });
  children.push(workflowWorker);
  const { temporal, config } = stack.api.deps;
  await untilPolling(temporal.connection, config.temporal.namespace, workflowWorker, config.temporal.jobsTaskQueue, 'WORKFLOW');
}, 300_000);

afterAll(async () => {
  for (const child of children) await sigkill(child);
  await stack?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the signing key', () => {
  it("is not in the API's configuration, though the stack's environment holds it", () => {
    const held = JSON.stringify(stack.api.deps.config);
    expect(held).toContain('BEGIN CERTIFICATE');
    expect(held).not.toContain('PRIVATE KEY');
    expect(held).not.toContain(chain.keyFile);
  });

  it('is needed by neither the API nor the workflow worker: a job runs through them to an output the provider worker signed', async () => {
    const account = await createTestAccount(stack.prisma);
    // The worker polls a moment before its build is made current: until then a submit is refused, charging nothing.
    const submitted = await eventually(
      async () => {
        const answer = await post(`${api.url}/v1/jobs/submit`, account.apiKey, { model: 'pixelforge/forge-pro/text-to-image', input: { prompt: 'a signed lighthouse' } });
        return answer.status === 503 ? undefined : answer;
      },
      120_000,
      1_000,
      'a submit admitted',
    );
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const job = await waitForFinal(api, account.apiKey, submitted.body.jobId, 240_000);
    expect(job.status).toBe('completed');
    expect(api.child.exitCode).toBeNull();

    const report = await get(`${api.url}/v1/jobs/${job.jobId}/outputs/1/provenance`, account.apiKey);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ hasManifest: true, valid: true, signedByThisService: true });
  }, 300_000);

  it('is needed by a provider worker, which does not start without it and says which variable to set', async () => {
    const child = spawn(process.execPath, builtArgs(path.join('src', 'workers', 'main.ts'), ['--provider', 'pixelforge']), {
      cwd: REPO_ROOT,
      env: { ...workerProcessEnv(stack.config), ...chainOnly() },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/PROVENANCE_CERT_CHAIN and PROVENANCE_PRIVATE_KEY go together in a process that signs outputs/);
  }, 120_000);
});
