import type { Job } from '@genmedia/client';
import { formatEta } from '../format';

/** Where an unfinished job stands: its place in genmedia's line while it waits, the upstream's queue, and the time left. */
export function JobWaiting({ estimate, status }: { estimate: JobEstimate; status: Job['status'] }) {
  const place = status === 'pending' ? estimate.placeInLine : null;
  const p90 = estimate.estimatedCompletionTimeP90;
  return (
    <>
      {place != null && place > 0 && (
        <span className="muted" data-testid="place-in-line">
          {' '}
          · place {place} in line
        </span>
      )}
      {'queuePosition' in estimate && estimate.queuePosition != null && <span className="muted"> · position {estimate.queuePosition} in the upstream's queue</span>}
      <span className="muted" data-testid="time-left">
        {' '}
        · done {formatEta(estimate.estimatedCompletionTime)}
        {p90 && p90 > (estimate.estimatedCompletionTime ?? '') ? ` (9 in 10 ${formatEta(p90)})` : ''}
      </span>
    </>
  );
}

/** The estimate's fields, as a job, its listing entry and its events all carry them. */
type JobEstimate = Pick<Job, 'estimatedCompletionTimeP90' | 'estimatedStartTime' | 'placeInLine'> & {
  estimatedCompletionTime?: string | null;
  queuePosition?: number | null;
};
