/** Reading a manifest report for people: what each validation state means, and genmedia's own assertion. */
import type { ProvenanceReport } from '@genmedia/client';
import { GENMEDIA_ASSERTION, type GenmediaAssertion } from '../../../src/shared/provenance';

type State = NonNullable<ProvenanceReport['validationState']>;

export const VALIDATION_STATES: Record<State, { text: string; tone: 'ok' | 'warn' | 'bad' }> = {
  Trusted: { text: "valid, and signed by this deployment's chain", tone: 'ok' },
  Valid: { text: 'valid, but signed by another chain than this deployment’s', tone: 'warn' },
  Invalid: { text: 'the file was changed after it was signed, or its manifest is broken', tone: 'bad' },
};


const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** genmedia's assertion among `assertions`, when there is one of the expected shape (another signer's may not be). */
export function genmediaAssertionIn(assertions: Array<{ label: string; data?: unknown }>): GenmediaAssertion | null {
  const data = assertions.find((a) => a.label === GENMEDIA_ASSERTION)?.data;
  if (!isRecord(data) || !isRecord(data.route)) return null;
  const { jobId, output, model, version, createdAt, route } = data;
  if (typeof jobId !== 'string' || typeof output !== 'number' || typeof model !== 'string' || typeof version !== 'string' || typeof createdAt !== 'string') return null;
  if (typeof route.provider !== 'string') return null;
  return {
    jobId,
    output,
    model,
    version,
    createdAt,
    route: { provider: route.provider, ...(typeof route.upstreamModel === 'string' ? { upstreamModel: route.upstreamModel } : {}) },
  };
}
