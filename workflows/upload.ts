import { proxyActivities, sleep } from '@temporalio/workflow';
import type { UploadActivities } from '../activities/uploads';
import type { UploadExpiryInput } from '../src/contracts/workflows/uploadExpiry';

const { expireUpload } = proxyActivities<UploadActivities>({
  startToCloseTimeout: '30 seconds',
  // No maximumAttempts: a storage or database outage must not leave a file alive, so retry until it works.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The life of one uploaded file (`upload:<fileId>`): a durable timer until `expiresAt`, then deletion. */
export async function uploadExpiryWorkflow(input: UploadExpiryInput): Promise<void> {
  const remainingMs = Date.parse(input.expiresAt) - Date.now();
  if (remainingMs > 0) await sleep(remainingMs);
  await expireUpload(input.fileId);
}
