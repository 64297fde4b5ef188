import { describe, expect, it } from 'vitest';
import { predictionIdOf } from '../../../../src/providers/cog/ids';
import { progressOfLogs, snapshotOf, stageOfLogs } from '../../../../src/providers/cog/predictions';

describe('Cog prediction ids', () => {
  it('keeps our job and attempt ids readable and within the characters a server can use as a directory', () => {
    expect(predictionIdOf('job_01JABCDEFGHJKMNPQRSTVWXYZ')).toBe('job_01JABCDEFGHJKMNPQRSTVWXYZ');
    expect(predictionIdOf('job_01JABC.2')).toBe('job_01JABC-2');
  });

  it('hashes anything else into a short safe id, the same each time', () => {
    for (const raw of ['a/b', 'x'.repeat(300), 'ünï', '../etc']) {
      const id = predictionIdOf(raw);
      expect(id).toMatch(/^gm-[0-9a-f]{40}$/);
      expect(predictionIdOf(raw)).toBe(id);
    }
    expect(predictionIdOf('a/b')).not.toBe(predictionIdOf('a-b/'));
  });
});

describe('progress and stage from Cog logs', () => {
  // As coglet 0.23 sends them: stdout and stderr merged, tqdm's carriage returns kept.
  const logs = 'seed 3\nstep 1/6\n\r 16%|#         | 1/6 [00:00<00:00]step 2/6\n\r 33%|###       | 2/6 [00:00<00:00]';

  it('reads the last step line or progress bar', () => {
    expect(progressOfLogs(logs)).toBe(33);
    expect(progressOfLogs('step 3/12\n')).toBe(25);
    expect(progressOfLogs('\r 76%|███▌  | 7568/10000 [00:33<00:10]')).toBe(76);
    expect(progressOfLogs('loading weights\n')).toBeUndefined();
    expect(progressOfLogs(undefined)).toBeUndefined();
    expect(progressOfLogs('step 5/0\n')).toBeUndefined();
  });

  it('takes the last log line as the stage', () => {
    expect(stageOfLogs(logs)).toBe('33%|###       | 2/6 [00:00<00:00]');
    expect(stageOfLogs('step 4/20\n')).toBe('step 4/20');
    expect(stageOfLogs('')).toBeUndefined();
  });
});

describe('Cog predictions as snapshots', () => {
  it('maps each status', () => {
    expect(snapshotOf('p', { status: 'starting' })).toMatchObject({ state: 'queued' });
    expect(snapshotOf('p', { status: 'processing', logs: 'step 2/4\n' })).toMatchObject({ state: 'running', progress: 50, stage: 'step 2/4' });
    expect(snapshotOf('p', { status: 'succeeded', output: 'data:image/png;base64,AA==', metrics: { predict_time: 1.25 } })).toMatchObject({
      state: 'succeeded',
      result: 'data:image/png;base64,AA==',
      stage: 'succeeded (predict_time 1.3 s)',
    });
    expect(snapshotOf('p', { status: 'canceled' })).toMatchObject({ state: 'cancelled' });
  });

  it('classifies failures: a crashed worker is the server\'s fault, a raised error the prediction\'s', () => {
    expect(snapshotOf('p', { status: 'failed', error: 'Worker crashed' }).error?.code).toBe('PROVIDER_UNAVAILABLE');
    expect(snapshotOf('p', { status: 'failed', error: 'Prediction failed: RuntimeError: boom' }).error?.code).toBe('PROVIDER_JOB_FAILED');
    expect(snapshotOf('p', { status: 'failed', error: 'NSFW content detected' }).error?.code).toBe('CONTENT_POLICY_VIOLATION');
  });
});
