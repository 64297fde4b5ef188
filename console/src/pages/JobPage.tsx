import { formatDollars, isTerminal, type Job, type JobAttempt, type JobOutput } from '@genmedia/client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { StatusBadge } from '../components/StatusBadge';
import { formatDuration, formatTime } from '../format';
import { JobWaiting } from '../components/JobWaiting';
import { useSession } from '../session';
import { useJobEvents } from './useJobEvents';
import { WebhookLog } from './WebhookLog';
import { DeleteJob } from './DeleteJob';
import { ContentCredentials } from './ContentCredentials';

export function JobPage() {
  const { jobId = '' } = useParams();
  const { client } = useSession();
  const job = useQuery({
    queryKey: ['job', jobId],
    queryFn: ({ signal }) => client.getJob(jobId, { signal }),
    // A delivery to the account's bucket settles after the job: read the job again until it does.
    refetchInterval: (query) => (query.state.data?.delivery?.status === 'pending' ? 2000 : false),
  });
  if (job.error) return <div className="page"><ErrorNotice error={job.error} context={`Job ${jobId}`} /></div>;
  if (job.isPending) return <div className="page"><p aria-busy="true">Loading {jobId}…</p></div>;
  return <JobView job={job.data} refetch={() => void job.refetch()} />;
}

function JobView({ job, refetch }: { job: Job; refetch(): void }) {
  const { client, can } = useSession();
  const queryClient = useQueryClient();
  const finished = isTerminal(job.status);
  const live = useJobEvents(client, job.jobId, !finished, refetch);
  const event = live.last;
  const status = finished ? job.status : (event?.status ?? job.status);
  const progress = finished ? job.progress : (event?.progress ?? job.progress);
  const cancel = useMutation({
    mutationFn: () => client.cancelJob(job.jobId),
    onSettled: () => {
      refetch();
      void queryClient.invalidateQueries({ queryKey: ['account'] });
    },
  });

  return (
    <div className="page job-page">
      <p className="muted">
        <Link to={`/models/${job.model}`}>{job.model}</Link> · version {job.version}
      </p>
      <h1>
        Job <code>{job.jobId}</code>
      </h1>
      <section className="job-status" aria-label="Status">
        <p>
          <StatusBadge status={status} />
          {!finished && event?.stage && <span className="stage"> {event.stage}</span>}
          {!finished && <JobWaiting estimate={event ?? job} status={status} />}
        </p>
        <progress max={100} value={progress} aria-label="Progress" aria-valuetext={`${progress}%`} />
        <span className="progress-label">{progress}%</span>
        {live.error !== null && <ErrorNotice error={live.error} context="Live status" />}
      </section>

      <dl className="facts">
        <dt>Charged</dt>
        <dd>{formatDollars(job.costMicroCents)}</dd>
        {job.refundedMicroCents > 0 && (
          <>
            <dt>Refunded</dt>
            <dd data-testid="refund">{formatDollars(job.refundedMicroCents)}</dd>
          </>
        )}
        <dt>Submitted</dt>
        <dd>{formatTime(job.createdAt)}</dd>
        <dt>Finished</dt>
        <dd>{formatTime(job.completedAt)}</dd>
        <OutputRetention job={job} />
      </dl>

      {status === 'pending' && (
        <p>
          <button type="button" onClick={() => cancel.mutate()} disabled={cancel.isPending || !can('submit_job')}>
            {cancel.isPending ? 'Cancelling…' : 'Cancel and refund'}
          </button>
        </p>
      )}
      {cancel.error && <ErrorNotice error={cancel.error} context="Cancel" />}

      {job.error && (
        <div className="notice error" role="alert">
          <strong>{job.error.code}</strong>
          <p>{job.error.message}</p>
          {job.refundedMicroCents > 0 && <p>{formatDollars(job.refundedMicroCents)} was refunded.</p>}
        </div>
      )}
      {job.status === 'cancelled' && <p className="notice">Cancelled; {formatDollars(job.refundedMicroCents)} refunded.</p>}

      <DeleteJob job={job} onErased={refetch} />

      {job.attempts.length > 1 && <Attempts attempts={job.attempts} />}
      {job.outputs.length > 0 && <Outputs outputs={job.outputs} />}
      {job.outputs.length > 0 && <ContentCredentials jobId={job.jobId} outputs={job.outputs} />}
      {job.delivery && <Delivery delivery={job.delivery} />}
      {job.webhookUrl && <WebhookLog jobId={job.jobId} />}
    </div>
  );
}

const DELIVERY_STATUS = { pending: 'Being copied', delivered: 'Delivered', failed: 'Not delivered' } as const;

/** The copy of the outputs to the account's own bucket, when the account has one. */
function Delivery({ delivery }: { delivery: NonNullable<Job['delivery']> }) {
  return (
    <section aria-labelledby="delivery-title">
      <h2 id="delivery-title">Your bucket</h2>
      <dl className="facts">
        <dt>Delivery</dt>
        <dd data-testid="delivery-status">{DELIVERY_STATUS[delivery.status]}</dd>
        {delivery.deliveredAt && (
          <>
            <dt>Delivered</dt>
            <dd>{formatTime(delivery.deliveredAt)}</dd>
          </>
        )}
        {delivery.reason && (
          <>
            <dt>{delivery.status === 'failed' ? 'Reason' : 'Last attempt'}</dt>
            <dd>{delivery.reason}</dd>
          </>
        )}
      </dl>
      {delivery.keys.length > 0 && (
        <ul className="delivery-keys">
          {delivery.keys.map((key) => (
            <li key={key}>
              <code>{key}</code>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const DELETION_REASONS: Record<NonNullable<Job['outputsDeletedReason']>, string> = {
  retention: 'retention passed',
  client: 'job deleted',
  operator: 'account erased',
};

/** How long the outputs are kept, or when and why they were deleted. */
function OutputRetention({ job }: { job: Job }) {
  if (job.outputsDeletedAt) {
    const reason = job.outputsDeletedReason ? DELETION_REASONS[job.outputsDeletedReason] : 'deleted';
    return (
      <>
        <dt>Outputs</dt>
        <dd data-testid="output-retention">
          deleted <time dateTime={job.outputsDeletedAt}>{formatTime(job.outputsDeletedAt)}</time> ({reason})
        </dd>
      </>
    );
  }
  if (job.status !== 'completed' && job.status !== 'pending' && job.status !== 'processing') return null;
  return (
    <>
      <dt>Outputs</dt>
      <dd data-testid="output-retention">
        {job.outputsRetainedUntil ? (
          <>
            kept until <time dateTime={job.outputsRetainedUntil}>{formatTime(job.outputsRetainedUntil)}</time>
          </>
        ) : job.retentionSeconds === null ? (
          'kept until deleted'
        ) : (
          `kept ${formatDuration(job.retentionSeconds)} after completion`
        )}
      </dd>
    </>
  );
}

/** The routes a job was tried on, when it was tried on more than one (a failover). */
function Attempts({ attempts }: { attempts: JobAttempt[] }) {
  return (
    <section aria-labelledby="attempts-title">
      <h2 id="attempts-title">Routes tried</h2>
      <table className="attempts">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Provider</th>
            <th scope="col">Outcome</th>
            <th scope="col">Started</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((attempt) => (
            <tr key={attempt.number}>
              <td>{attempt.number}</td>
              <td>{attempt.provider}</td>
              <td>
                {attempt.status}
                {attempt.error && <> · {attempt.error.code}</>}
                {attempt.producedOutputs && <> · produced the outputs</>}
              </td>
              <td>{formatTime(attempt.startedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Outputs({ outputs }: { outputs: JobOutput[] }) {
  const [open, setOpen] = useState<JobOutput | null>(null);
  return (
    <section aria-labelledby="outputs-title">
      <h2 id="outputs-title">Outputs</h2>
      <ul className="gallery">
        {outputs.map((output, index) => (
          <li key={output.url}>
            {output.contentType.startsWith('video/') ? (
              <video controls preload="metadata" src={output.url} aria-label={`Video ${index + 1}`} />
            ) : (
              <button type="button" className="thumb" onClick={() => setOpen(output)} aria-label={`Open image ${index + 1} full size`}>
                <img src={output.url} alt={`Output ${index + 1}`} width={output.width} height={output.height} loading="lazy" />
              </button>
            )}
            <a href={output.url} download>
              Download {index + 1}
            </a>
          </li>
        ))}
      </ul>
      {open && (
        <div
          className="lightbox"
          role="dialog"
          aria-modal="true"
          aria-label="Full-size image"
          onClick={() => setOpen(null)}
          onKeyDown={(e) => e.key === 'Escape' && setOpen(null)}
        >
          <img src={open.url} alt="Full-size output" />
          <button type="button" autoFocus onClick={() => setOpen(null)}>
            Close
          </button>
        </div>
      )}
    </section>
  );
}
