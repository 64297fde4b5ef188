/** Where a job's delivered files go in the customer's bucket: `{prefix}{jobId}/{n}.{ext}` and `{prefix}{jobId}/manifest.json`. */
import path from 'node:path';

/** The key of the job's `n`th output (1-based), with the extension our own key has. */
export function deliveredOutputKey(prefix: string, jobId: string, n: number, ourKey: string): string {
  const ext = path.posix.extname(ourKey);
  return `${prefix}${jobId}/${n}${ext}`;
}

export function manifestKey(prefix: string, jobId: string): string {
  return `${prefix}${jobId}/manifest.json`;
}
