/**
 * Checks a file's Content Credentials against this deployment: the file is dropped or chosen, posted as it is to
 * POST /v1/provenance/verify, and the four answers are shown (a manifest, valid, signed by this deployment, which job).
 */
import type { ProvenanceVerification } from '@genmedia/client';
import { useMutation } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatBytes } from '../format';
import { useSession } from '../session';
import { ReportFacts } from './ContentCredentials';

const ACCEPTED = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'video/webm'];

export function VerifyPage() {
  const { client, can } = useSession();
  const [dragging, setDragging] = useState(false);
  const check = useMutation({ mutationFn: (chosen: File) => client.verifyProvenance(chosen) });
  // The file of the check shown: the mutation's own, so its name never stands beside another file's answers.
  const file = check.variables;
  const allowed = can('check_status');

  function take(chosen: File) {
    check.mutate(chosen);
  }

  function drop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    const chosen = e.dataTransfer.files[0];
    if (chosen && allowed) take(chosen);
  }

  return (
    <div className="page verify-page">
      <h1>Check a file</h1>
      <p className="muted">
        Outputs of this service are signed with Content Credentials (a C2PA manifest). Drop a file to see whether it still carries them, whether it is
        unchanged since it was signed, whether this deployment signed it, and which of your jobs made it. PNG, JPEG, WebP, MP4 or WebM.
      </p>
      <div
        className={`dropzone${dragging ? ' dragging' : ''}`}
        data-testid="verify-dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <p className="muted">
          {allowed ? 'Drop a file here, or ' : 'This key cannot check files (it lacks the check_status scope).'}
          {allowed && (
            <label className="file-button">
              choose a file
              <input
                type="file"
                accept={ACCEPTED.join(',')}
                onChange={(e) => {
                  const chosen = e.target.files?.[0];
                  if (chosen) take(chosen);
                  e.target.value = '';
                }}
              />
            </label>
          )}
        </p>
        {file && (
          <p aria-live="polite">
            {check.isPending ? 'Checking' : 'Checked'} {file.name} ({formatBytes(file.size)})
            {check.isPending && '…'}
          </p>
        )}
      </div>
      {check.error ? <ErrorNotice error={check.error} context={`Checking ${file?.name ?? 'the file'}`} /> : null}
      {check.data && !check.isPending && <Answers result={check.data} webm={file?.type === 'video/webm' || /\.webm$/i.test(file?.name ?? '')} />}
    </div>
  );
}

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

function Answers({ result, webm }: { result: ProvenanceVerification; webm: boolean }) {
  return (
    <section aria-labelledby="answers-title" data-testid="verify-result">
      <h2 id="answers-title">What the file proves</h2>
      <dl className="facts answers">
        <dt>Carries Content Credentials</dt>
        <dd data-testid="verify-has-manifest">{yesNo(result.hasManifest)}</dd>
        <dt>Unchanged since signed</dt>
        <dd data-testid="verify-valid">{result.hasManifest ? yesNo(result.valid) : '—'}</dd>
        <dt>Signed by this deployment</dt>
        <dd data-testid="verify-signed">{yesNo(result.signedByThisService)}</dd>
        <dt>Your job</dt>
        <dd data-testid="verify-job">
          {result.job ? (
            <Link to={`/jobs/${result.job.jobId}`}>
              {result.job.jobId} · output {result.job.output}
            </Link>
          ) : result.signedByThisService ? (
            'not a job of this account'
          ) : (
            '—'
          )}
        </dd>
      </dl>
      {!result.hasManifest && webm && (
        <p className="notice">
          A WebM carries its manifest in a sidecar <code>.c2pa</code> file, not inside: check one of your own outputs on its job page, or the file and its
          sidecar with <code>c2patool</code> (see the provenance guide).
        </p>
      )}
      {result.hasManifest && (
        <>
          <h3>Manifest</h3>
          <ReportFacts report={result.report} />
        </>
      )}
    </section>
  );
}
