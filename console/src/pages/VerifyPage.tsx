/**
 * Checks a file's Content Credentials against this deployment: the file (with, for a WebM, its sidecar `.c2pa`) is
 * dropped or chosen, posted to POST /v1/provenance/verify, and the four answers are shown (a manifest, valid, signed
 * by this deployment, which job).
 */
import type { ProvenanceVerification } from '@genmedia/client';
import { useMutation } from '@tanstack/react-query';
import { useState, type DragEvent } from 'react';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatBytes } from '../format';
import { useSession } from '../session';
import { ReportFacts } from './ContentCredentials';

const ACCEPTED = ['image/png', 'image/jpeg', 'image/webp', 'video/mp4', 'video/webm', '.c2pa', 'application/c2pa'];

/** A file to check, and the sidecar manifest to check it against. */
interface Chosen {
  file: File;
  manifest?: File;
}

const isManifest = (file: File) => file.type === 'application/c2pa' || /\.c2pa$/i.test(file.name);

/** One file, or a file and its `.c2pa` sidecar, in either order; anything else is a message. */
function pairUp(files: File[]): Chosen | string {
  const manifests = files.filter(isManifest);
  const assets = files.filter((file) => !isManifest(file));
  if (assets.length !== 1 || manifests.length > 1) return 'Drop one file, or one file with its .c2pa sidecar manifest.';
  return { file: assets[0]!, ...(manifests[0] ? { manifest: manifests[0] } : {}) };
}

export function VerifyPage() {
  const { client, can } = useSession();
  const [dragging, setDragging] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const check = useMutation({ mutationFn: ({ file, manifest }: Chosen) => client.verifyProvenance(file, manifest ? { manifest } : {}) });
  // The files of the check shown: the mutation's own, so their names never stand beside another file's answers.
  const chosen = check.variables;
  const file = chosen?.file;
  const allowed = can('check_status');

  function take(files: File[]) {
    if (files.length === 0) return;
    const pair = pairUp(files);
    setRefusal(typeof pair === 'string' ? pair : null);
    if (typeof pair !== 'string') check.mutate(pair);
  }

  function drop(e: DragEvent) {
    e.preventDefault();
    setDragging(false);
    if (allowed) take(Array.from(e.dataTransfer.files));
  }

  return (
    <div className="page verify-page">
      <h1>Check a file</h1>
      <p className="muted">
        Outputs of this service are signed with Content Credentials (a C2PA manifest). Drop a file to see whether it still carries them, whether it is
        unchanged since it was signed, whether this deployment signed it, and which of your jobs made it. PNG, JPEG, WebP, MP4 or WebM; a WebM keeps its
        manifest in a sidecar <code>.c2pa</code> file: drop both together.
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
          {allowed ? 'Drop a file (and its .c2pa sidecar) here, or ' : 'This key cannot check files (it lacks the check_status scope).'}
          {allowed && (
            <label className="file-button">
              choose files
              <input
                type="file"
                multiple
                accept={ACCEPTED.join(',')}
                onChange={(e) => {
                  take(Array.from(e.target.files ?? []));
                  e.target.value = '';
                }}
              />
            </label>
          )}
        </p>
        {refusal && (
          <p className="notice" role="alert">
            {refusal}
          </p>
        )}
        {file && !refusal && (
          <p aria-live="polite">
            {check.isPending ? 'Checking' : 'Checked'} {file.name} ({formatBytes(file.size)})
            {chosen?.manifest && ` with ${chosen.manifest.name}`}
            {check.isPending && '…'}
          </p>
        )}
      </div>
      {check.error && !refusal ? <ErrorNotice error={check.error} context={`Checking ${file?.name ?? 'the file'}`} /> : null}
      {check.data && !check.isPending && !refusal && (
        <Answers result={check.data} webmAlone={!chosen?.manifest && (file?.type === 'video/webm' || /\.webm$/i.test(file?.name ?? ''))} />
      )}
    </div>
  );
}

const yesNo = (value: boolean) => (value ? 'Yes' : 'No');

function Answers({ result, webmAlone }: { result: ProvenanceVerification; webmAlone: boolean }) {
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
      {!result.hasManifest && webmAlone && (
        <p className="notice">
          A WebM carries its manifest in a sidecar <code>.c2pa</code> file, not inside: drop the WebM and its <code>.c2pa</code> together to check them.
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
