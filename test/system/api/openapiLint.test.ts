/**
 * The served /openapi.json passes Redocly CLI's `recommended` rules with no error and no warning: every operation
 * has an operationId, security and a success answer, and so on. Redocly CLI is installed by the test bootstrap
 * into the cache (REDOCLY_CLI), outside the project's dependencies.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { request, startTestApi } from '../../support/api';

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

let api: RunningApi;
let workDir: string;

beforeAll(async () => {
  api = await startTestApi();
  workDir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-openapi-lint-'));
});

afterAll(async () => {
  await api?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** `redocly lint` on a file, without blocking this process's event loop (the API under test lives in it). */
function redoclyLint(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const cli = process.env.REDOCLY_CLI;
  if (!cli) throw new Error('REDOCLY_CLI is not set: run through npm test, whose bootstrap installs Redocly CLI');
  // Nothing leaves the machine: no usage telemetry, no update check.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, 'lint', '--extends=recommended', '--format=json', file], { cwd: workDir, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('the served OpenAPI document', () => {
  it('passes Redocly recommended rules with no error and no warning', async () => {
    const file = path.join(workDir, 'openapi.json');
    writeFileSync(file, JSON.stringify((await request(`${api.url}/openapi.json`)).body));
    const run = await redoclyLint(file);
    const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as LintReport;
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    expect(problems).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.code, run.stderr).toBe(0);
  });

  it('names every operation, with names unique across the document', async () => {
    const doc = (await request(`${api.url}/openapi.json`)).body;
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)), ids.join(', ')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists JSON first for the events endpoints and describes the stream as text', async () => {
    const doc = (await request(`${api.url}/openapi.json`)).body;
    for (const path of ['/v1/jobs/{jobId}/events', '/v1/jobs/events']) {
      const content = doc.paths[path].get.responses['200'].content;
      expect(Object.keys(content), path).toEqual(['application/json', 'text/event-stream']);
      expect(content['application/json'].schema).toEqual({ $ref: '#/components/schemas/JobEventPage' });
      expect(content['text/event-stream'].schema).toMatchObject({ type: 'string', description: expect.stringContaining('JobEvent') });
    }
  });

  it('declares the headers clients read and the request bodies that are required', async () => {
    const doc = (await request(`${api.url}/openapi.json`)).body;
    type Operation = { requestBody?: { required?: boolean }; responses: Record<string, { headers?: Record<string, unknown> }> };
    const operations = Object.values(doc.paths as Record<string, Record<string, Operation>>).flatMap((ops) => Object.values(ops));
    const headersOf = (path: string, method: string, status: string) => Object.keys(doc.paths[path][method].responses[status].headers ?? {});
    for (const [path, method] of [['/v1/jobs/submit', 'post'], ['/v1/jobs/estimate', 'post'], ['/v1/uploads/presign', 'post']]) {
      expect(doc.paths[path][method].requestBody?.required, path).toBe(true);
    }
    expect(headersOf('/v1/jobs/submit', 'post', '201')).toEqual(expect.arrayContaining(['Location', 'Idempotent-Replayed', 'Preference-Applied', 'Deprecation']));
    expect(headersOf('/v1/jobs/{jobId}', 'get', '200')).toContain('Preference-Applied');
    expect(headersOf('/v1/files/{fileId}', 'get', '302')).toContain('Location');
    for (const operation of operations) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if ((response as { 'x-served-by'?: string })['x-served-by'] === 'storage') continue;
        expect(Object.keys(response.headers ?? {}), status).toEqual(expect.arrayContaining(['X-Request-Id', 'X-Trace-Id']));
        // Every error answer that asks for a retry says when (readiness's 503 is a probe's answer, not an error).
        const isError = JSON.stringify(response).includes('#/components/schemas/Error');
        if (isError && (status === '429' || status === '503')) expect(Object.keys(response.headers ?? {}), status).toContain('Retry-After');
      }
    }
  });
});
