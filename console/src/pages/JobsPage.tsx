import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { JobStatus, JobSummary } from '@genmedia/client';
import { LoadMore, useCursorPages } from '../components/cursorPages';
import { Empty, ErrorNotice } from '../components/ErrorNotice';
import { FilterSelect } from '../components/FilterSelect';
import { StatusBadge } from '../components/StatusBadge';
import { formatTime } from '../format';
import { useSession } from '../session';
import { JobWaiting } from '../components/JobWaiting';

const STATUSES: JobStatus[] = ['pending', 'processing', 'completed', 'failed', 'cancelled'];
const PAGE_SIZE = 20;

/** The account's jobs, newest first, a page at a time through the API's cursor. */
export function JobsPage() {
  const { client } = useSession();
  const [status, setStatus] = useState<JobStatus | ''>('');
  const [model, setModel] = useState('');
  const filter = { ...(status ? { status } : {}), ...(model.trim() ? { model: model.trim() } : {}) };
  const jobs = useCursorPages(['jobs', filter], (cursor, signal) => client.listJobs({ ...filter, limit: PAGE_SIZE, cursor }, { signal }));
  const rows = jobs.data?.pages.flatMap((p) => p.jobs) ?? [];

  return (
    <div className="page">
      <div className="page-head">
        <h1>Jobs</h1>
        <Link to="/batches">Batches: many jobs from one JSONL file →</Link>
      </div>
      <p className="muted">
        Downloaded an output? <Link to="/verify">Check its Content Credentials</Link>.
      </p>
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filter jobs">
        <FilterSelect label="Status" value={status} onChange={(value) => setStatus(value as JobStatus | '')} options={STATUSES.map((s) => ({ value: s, label: s }))} />
        <label>
          Model
          <input type="search" value={model} onChange={(e) => setModel(e.target.value)} placeholder="provider/model/capability" maxLength={200} />
        </label>
      </form>
      {jobs.error ? <ErrorNotice error={jobs.error} context="Loading jobs" /> : null}
      {jobs.isPending && <p aria-busy="true">Loading jobs…</p>}
      {jobs.isSuccess && rows.length === 0 && (
        <Empty>
          No jobs yet. <Link to="/">Pick a model</Link> to generate something.
        </Empty>
      )}
      {rows.length > 0 && (
        <table className="jobs">
          <thead>
            <tr>
              <th scope="col">Output</th>
              <th scope="col">Job</th>
              <th scope="col">Model</th>
              <th scope="col">Status</th>
              <th scope="col">Submitted</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((job) => (
              <tr key={job.jobId} data-job-id={job.jobId}>
                <td>
                  <Thumbnail job={job} />
                </td>
                <td>
                  <Link to={`/jobs/${job.jobId}`}>
                    <code>{job.jobId}</code>
                  </Link>
                </td>
                <td>{job.model}</td>
                <td>
                  <StatusBadge status={job.status} />
                  {(job.status === 'pending' || job.status === 'processing') && <JobWaiting estimate={job} status={job.status} />}
                </td>
                <td>{formatTime(job.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore pages={jobs} />
    </div>
  );
}

/** The first output of a completed job (the listing carries no outputs: the job is read once and cached). */
function Thumbnail({ job }: { job: JobSummary }) {
  const { client } = useSession();
  const detail = useQuery({
    queryKey: ['job', job.jobId],
    queryFn: ({ signal }) => client.getJob(job.jobId, { signal }),
    enabled: job.status === 'completed',
    staleTime: Infinity,
  });
  const output = detail.data?.outputs[0];
  if (!output) return <span className="thumb-empty" aria-hidden="true" />;
  if (output.contentType.startsWith('video/')) return <video className="thumb-small" src={output.url} preload="metadata" muted aria-label="Video output" />;
  return <img className="thumb-small" src={output.url} alt="First output" loading="lazy" />;
}
