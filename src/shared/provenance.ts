/**
 * genmedia's own assertion in the C2PA manifest of every output it signs: the service writes it, the console reads it
 * back (docs/provenance.md).
 */

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
