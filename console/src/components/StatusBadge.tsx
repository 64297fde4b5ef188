import type { JobStatus } from '@genmedia/client';

export function StatusBadge({ status }: { status: JobStatus }) {
  return <span className={`status status-${status}`} data-testid="job-status">{status}</span>;
}
