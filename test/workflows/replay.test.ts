/**
 * Every recorded history of a long-lived workflow (the job workflow, webhook delivery, the job event relay, upload
 * expiry, output delivery) must replay against the current workflow code without nondeterminism: a change that breaks one needs
 * `patched()` (see docs/jobs.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { historyFromObject } from './histories/format';
import { sharedWorkflowBundle } from './sharedBundle';

const HISTORIES = path.join(__dirname, 'histories');
const files = readdirSync(HISTORIES).filter((f) => f.endsWith('.json')).sort();

let bundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  bundle = await sharedWorkflowBundle();
}, 120_000);

describe('workflow replay', () => {
  it('has recorded histories for every outcome', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'job-cancelled.v1.json',
        'job-completed.v1.json',
        'job-failed.v1.json',
        'job-processing.v1.json',
        'job-rejected.v1.json',
        'job-upstream-completed.v2.json',
        'job-upstream-timeout.v2.json',
        'job-routed-failover.v6.json',
        'job-routed-planned.v7.json',
        'job-routed-hedged.v8.json',
        'job-routed-hedged-mid-check.v9.json',
        'job-routed-hedged.v10.json',
        'job-routed-hedged.v11.json',
        'webhook-delivery-retried.v1.json',
        'webhook-delivery-gone.v1.json',
        'job-event-webhooks-continued.v1.json',
        'upload-expiry.v1.json',
        'job-completed-delivery.v12.json',
        'output-delivery-retried.v1.json',
        'output-delivery-failed.v1.json',
        ...['v3', 'v4', 'v5'].flatMap((release) =>
          ['cancelled', 'completed', 'failed', 'processing', 'rejected', 'upstream-completed', 'upstream-timeout'].map((name) => `job-${name}.${release}.json`),
        ),
      ]),
    );
  });

  it.each(files)('replays %s', async (file) => {
    const history = historyFromObject(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8')));
    await expect(Worker.runReplayHistory({ workflowBundle: bundle }, history, file)).resolves.toBeUndefined();
  });
});
