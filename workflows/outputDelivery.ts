/**
 * Delivery of a job's outputs to its account's own bucket (`delivery:<jobId>`), started by the job workflow once the
 * job has completed and abandoned by it. One activity per attempt; the waits between attempts are durable timers, so a
 * bucket that is away for hours, crashes and deploys lose nothing. Past the retry period the delivery is given up.
 */
import { proxyActivities, sleep } from '@temporalio/workflow';
import type { OutputDeliveryActivities } from '../activities/outputDelivery';
import type { OutputDeliveryInput, OutputDeliveryResult } from '../src/contracts/workflows/outputDelivery';
import { deliveryBackoffSeconds } from '../src/shared/outputDelivery';
import { startWebhookDelivery } from './webhookStart';

/** Database work is retried until it succeeds; what the customer's bucket does is a result, not an activity failure. */
const DB_RETRY = { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } as const;

const { prepareOutputDelivery } = proxyActivities<OutputDeliveryActivities>({ startToCloseTimeout: '30 seconds', retry: DB_RETRY });

export async function outputDeliveryWorkflow(input: OutputDeliveryInput): Promise<OutputDeliveryResult> {
  const plan = await prepareOutputDelivery(input);
  if (!plan) return { status: 'skipped', attempts: 0 };
  const { attemptOutputDelivery } = proxyActivities<OutputDeliveryActivities>({
    startToCloseTimeout: plan.attemptTimeoutSeconds * 1000,
    // An attempt heartbeats only while bytes move: a stalled copy is ended by this, not by the attempt timeout.
    heartbeatTimeout: (plan.heartbeatTimeoutSeconds ?? 20) * 1000,
    retry: DB_RETRY,
  });
  const giveUpAt = Date.parse(plan.giveUpAt);

  for (let n = 1; ; ) {
    const attempt = plan.firstAttempt + n - 1;
    const delay = deliveryBackoffSeconds(n, plan) * 1000;
    const final = Date.now() + delay >= giveUpAt;
    const result = await attemptOutputDelivery.executeWithOptions({ summary: `Copy the outputs to the customer's bucket, attempt ${attempt}` }, [
      { jobId: input.jobId, attempt, final },
    ]);
    if (result.outcome === 'deferred') {
      // Not tried: the account's destination backs off or its attempts are all in flight. No attempt was used.
      await sleep(Math.max(1, result.waitSeconds ?? 1) * 1000);
      continue;
    }
    if (result.outcome !== 'retry') {
      if (plan.notify) await startWebhookDelivery({ jobId: input.jobId, eventType: 'job.delivered' });
      return { status: result.outcome, attempts: n };
    }
    await sleep(delay);
    n++;
  }
}
