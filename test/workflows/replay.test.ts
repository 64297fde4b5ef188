/**
 * Each build runs only the workflows it started (Worker Versioning, docs/workflow-versioning.md), so the histories
 * that must replay against this code without nondeterminism are its own (histories/current/), recorded again after
 * every workflow change (`npx tsx test/workflows/histories/record.ts`): a worker of the build replays them whenever
 * a workflow leaves its cache or moves to another worker of the same build. They replay on the bundle the workers
 * run, tracing's interceptors included (a worker with tracing off drops their spans).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { historyFromObject } from './histories/format';
import { TRACING_OFF } from '../../src/observability/tracing';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/workers/workflowPaths';
import { bundleWorkflows } from './temporalEnv';

const CURRENT = path.join(__dirname, 'histories', 'current');
const files = readdirSync(CURRENT).filter((f) => f.endsWith('.json')).sort();

let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  bundle = await bundleWorkflows(WORKFLOW_INTERCEPTOR_MODULES);
}, 120_000);

describe('workflow replay', () => {
  it("has the current code's histories for every outcome", () => {
    expect(files).toEqual(
      expect.arrayContaining([
        ...['completed', 'rejected', 'failed', 'processing', 'cancelled', 'upstream-completed', 'upstream-timeout'].map((name) => `job-${name}.json`),
        ...['routed', 'routed-planned', 'routed-hedged', 'routed-hedged-mid-check', 'delivered'].map((name) => `job-${name}.json`),
        'webhook-delivery-retried.json',
        'webhook-delivery-gone.json',
        'job-event-webhooks-continued.json',
        'upload-expiry.json',
        'output-delivery-retried.json',
        'output-delivery-failed.json',
      ]),
    );
  });

  it.each(files)('replays %s', async (file) => {
    const history = historyFromObject(JSON.parse(readFileSync(path.join(CURRENT, file), 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: bundle, sinks: TRACING_OFF.workerSinks }, history, file)).resolves.toBeUndefined();
  });
});
