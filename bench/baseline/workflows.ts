/**
 * The raw Temporal baseline of `bench/submit.ts`: a workflow admitted by an update that awaits one trivial activity
 * (what Update-with-Start costs with nothing of ours in it), then, for the end-to-end figure, one short work activity.
 */
import { condition, defineUpdate, proxyActivities, setHandler } from '@temporalio/workflow';
import type { BaselineActivities } from './activities';

export const admitBaseline = defineUpdate<string>('admit');

const { admitNoop, work } = proxyActivities<BaselineActivities>({ startToCloseTimeout: '30 seconds' });

export async function baselineJob(workMs: number): Promise<string> {
  let admitted = false;
  setHandler(admitBaseline, async () => {
    const id = await admitNoop();
    admitted = true;
    return id;
  });
  await condition(() => admitted);
  if (workMs > 0) await work(workMs);
  return 'done';
}
