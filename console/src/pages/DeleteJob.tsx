import { formatDollars, isTerminal, type Job } from '@genmedia/client';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatTime } from '../format';
import { useSession } from '../session';

/**
 * "Delete" on a finished job: a confirmation dialog, then DELETE /v1/jobs/{jobId}; once erased, what is left of it.
 */
export function DeleteJob({ job, onErased }: { job: Job; onErased(): void }) {
  const { client, can } = useSession();
  const [confirming, setConfirming] = useState(false);
  const erase = useMutation({
    mutationFn: () => client.deleteJob(job.jobId),
    onSuccess: () => {
      setConfirming(false);
      onErased();
    },
  });

  if (job.contentErasedAt) {
    return (
      <p className="notice" data-testid="erased">
        Deleted {formatTime(job.contentErasedAt)}: its outputs, input, input files, events and webhook log are gone. The charge of{' '}
        {formatDollars(job.costMicroCents)} and the times stay on your ledger.
      </p>
    );
  }
  if (!isTerminal(job.status)) return null;
  return (
    <>
      <p>
        <button type="button" className="danger" onClick={() => setConfirming(true)} disabled={!can('submit_job')}>
          Delete
        </button>
      </p>
      {confirming && (
        <div className="lightbox" role="alertdialog" aria-modal="true" aria-labelledby="delete-title" aria-describedby="delete-text" onKeyDown={(e) => e.key === 'Escape' && !erase.isPending && setConfirming(false)}>
          <div className="confirm">
            <h2 id="delete-title">Delete this job?</h2>
            <p id="delete-text">
              Its outputs, its input and prompt, the files you uploaded for it, its events and its webhook log are erased for good. The charge stays on
              your ledger.
            </p>
            <button type="button" className="danger" onClick={() => erase.mutate()} disabled={erase.isPending} autoFocus>
              {erase.isPending ? 'Deleting…' : 'Yes, delete'}
            </button>
            <button type="button" onClick={() => setConfirming(false)} disabled={erase.isPending}>
              Keep it
            </button>
          </div>
        </div>
      )}
      {erase.error && <ErrorNotice error={erase.error} context="Delete" />}
    </>
  );
}
