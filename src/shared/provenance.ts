/**
 * genmedia's own assertion in the C2PA manifest of every output it signs: the service writes it, the console reads it
 * back (docs/provenance.md); and the media type the manifests are served and delivered as.
 */

/** The media type of a sidecar manifest store (`.c2pa`): the job record, the provenance API and delivery name it. */
export const C2PA_MANIFEST_TYPE = 'application/c2pa';

/** Label of genmedia's own assertion: which job, model and route made the file, and when. */
export const GENMEDIA_ASSERTION = 'io.genmedia.output';

export interface GenmediaAssertion {
  jobId: string;
  output: number;
  model: string;
  version: string;
  route: { provider: string; upstreamModel?: string };
  createdAt: string;
  /** Only when the account opted in (an operator setting): the prompt is the customer's. */
  prompt?: string;
}
