/**
 * The Content Credentials (C2PA manifest) of each output of a job, as GET /v1/jobs/{jobId}/outputs/{n}/provenance
 * reports them: whether the stored file validates, who signed it, and what genmedia's own assertion says.
 */
import type { JobOutput, ProvenanceReport } from '@genmedia/client';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorNotice } from '../components/ErrorNotice';
import { formatTime } from '../format';
import { useSession } from '../session';
import { genmediaAssertionIn, VALIDATION_STATES } from './provenanceFacts';

export function ContentCredentials({ jobId, outputs }: { jobId: string; outputs: JobOutput[] }) {
  return (
    <section aria-labelledby="credentials-title">
      <h2 id="credentials-title">Content Credentials</h2>
      <p className="muted">
        Outputs are signed with a C2PA manifest before they are stored, unless provenance is off for the account. <Link to="/verify">Check a file</Link> you
        downloaded.
      </p>
      <ul className="credentials">
        {outputs.map((output, index) => (
          <li key={output.url}>
            <OutputCredentials jobId={jobId} n={index + 1} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function OutputCredentials({ jobId, n }: { jobId: string; n: number }) {
  const { client } = useSession();
  const provenance = useQuery({
    queryKey: ['provenance', jobId, n],
    queryFn: ({ signal }) => client.outputProvenance(jobId, n, { signal }),
    // A stored output never changes: its manifest is read once.
    staleTime: Infinity,
  });
  const title = `Output ${n}`;
  return (
    <article className="credential" aria-label={`Content Credentials of output ${n}`} data-testid={`credentials-${n}`}>
      <h3>{title}</h3>
      {provenance.error ? <ErrorNotice error={provenance.error} context={`Content Credentials of output ${n}`} /> : null}
      {provenance.isPending && <p aria-busy="true">Reading the manifest…</p>}
      {provenance.data && <ReportFacts report={provenance.data} manifestUrl={provenance.data.manifestUrl} />}
    </article>
  );
}

/** A manifest report as facts: shared by the job page and the verify page. */
export function ReportFacts({ report, manifestUrl = null }: { report: ProvenanceReport; manifestUrl?: string | null }) {
  if (!report.hasManifest) {
    return (
      <p className="credential-state none" data-testid="credential-state">
        No Content Credentials: the file carries no C2PA manifest.
      </p>
    );
  }
  const state = VALIDATION_STATES[report.validationState ?? 'Invalid'];
  const active = report.activeManifest;
  const signer = active?.signer;
  const assertion = active ? genmediaAssertionIn(active.assertions) : null;
  return (
    <>
      <p className={`credential-state ${state.tone}`} data-testid="credential-state">
        <strong>{report.validationState ?? 'Invalid'}</strong> · {state.text}
      </p>
      <dl className="facts">
        <dt>Manifest</dt>
        <dd>
          {report.manifestLocation === 'sidecar' ? 'in a sidecar file' : 'embedded in the file'}
          {manifestUrl && (
            <>
              {' '}
              · <a href={manifestUrl}>download the .c2pa</a>
            </>
          )}
        </dd>
        {signer && (
          <>
            <dt>Signed by</dt>
            <dd data-testid="credential-signer">
              {signer.commonName ?? 'unnamed certificate'}
              {signer.issuer && <> · issued by {signer.issuer}</>}
              {signer.algorithm && <> · {signer.algorithm}</>}
            </dd>
            {signer.time && (
              <>
                <dt>Signed</dt>
                <dd>{formatTime(signer.time)}</dd>
              </>
            )}
          </>
        )}
        {active?.claimGenerator && (
          <>
            <dt>Claim generator</dt>
            <dd>{active.claimGenerator}</dd>
          </>
        )}
        {assertion && (
          <>
            <dt>Job</dt>
            <dd data-testid="credential-job">
              <code>{assertion.jobId}</code> · output {assertion.output}
            </dd>
            <dt>Model</dt>
            <dd data-testid="credential-model">
              {assertion.model} · version {assertion.version}
            </dd>
            <dt>Route</dt>
            <dd>
              {assertion.route.provider}
              {assertion.route.upstreamModel && <> · {assertion.route.upstreamModel}</>}
            </dd>
            <dt>Made</dt>
            <dd>{formatTime(assertion.createdAt)}</dd>
          </>
        )}
      </dl>
      {active && active.ingredients.length > 0 && (
        <>
          <h4>Ingredients</h4>
          <ul className="ingredients" data-testid="credential-ingredients">
            {active.ingredients.map((ingredient, i) => (
              <li key={i}>
                {ingredient.title ?? 'untitled'}
                {ingredient.relationship && <> ({ingredient.relationship})</>}
                {ingredient.claimGenerator && <> · made with {ingredient.claimGenerator}</>}
                {ingredient.signer?.commonName && <> · signed by {ingredient.signer.commonName}</>}
              </li>
            ))}
          </ul>
        </>
      )}
      {report.failures.length > 0 && (
        <ul className="failures" data-testid="credential-failures">
          {report.failures.map((failure, i) => (
            <li key={i}>
              <code>{failure.code}</code>
              {failure.explanation && <> · {failure.explanation}</>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
