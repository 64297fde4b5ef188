/**
 * The prediction id we give Cog. The server uses it raw as a directory name, and an id over 255 bytes leaves the
 * slot taken for good, so it is kept to safe characters and a short length; ours (`job_…`, `job_….2`) already are,
 * anything else is hashed.
 */
import crypto from 'node:crypto';

const SAFE = /^[A-Za-z0-9_-]{1,100}$/;

export function predictionIdOf(jobId: string): string {
  const id = jobId.replace(/\./g, '-');
  if (SAFE.test(id)) return id;
  return `gm-${crypto.createHash('sha256').update(jobId).digest('hex').slice(0, 40)}`;
}
