/**
 * One adapter per hosted upstream (fal, Replicate, Runway, Google, OpenAI), each built on the upstream's official SDK.
 * Each is a `ProviderAdapter` (src/providers/types.ts), like every other kind's; it needs only the route and the few
 * fields below of a submission, and every call it gets carries the route (`routeOf`). An adapter only speaks to its
 * upstream: it never touches PostgreSQL, MinIO or Temporal.
 *
 * Errors: every method throws `ProviderError` (src/providers/types.ts) with a stable code for anything
 * the upstream answered, or the abort reason when `signal` fired.
 */
import type { UpstreamMapping } from '../../shared/upstreams';
import type { GenerationRef, GenerationSnapshot, InputFile, ProviderAdapter, Submission } from '../types';
import type { UpstreamId } from './ids';

export { UPSTREAM_IDS, isUpstreamId, type UpstreamId } from './ids';
export type { UpstreamMapping } from '../../shared/upstreams';

/** What an upstream is sent of a submission. */
export type UpstreamSubmission = Pick<Submission, 'jobId' | 'input' | 'callbackUrl' | 'deadline' | 'mapping'>;

/** A `ProviderAdapter` that reaches a hosted upstream: it hands every file over and needs less of a submission. */
export interface UpstreamAdapter extends ProviderAdapter {
  readonly id: UpstreamId;
  prepareFile(file: InputFile, signal: AbortSignal): Promise<unknown>;
  submit(submission: UpstreamSubmission, signal: AbortSignal): Promise<GenerationSnapshot>;
  status(ref: GenerationRef, signal: AbortSignal): Promise<GenerationSnapshot>;
  cancel(ref: GenerationRef, signal: AbortSignal): Promise<void>;
}

/** The upstream mapping a call to an upstream carries: a version without one cannot reach it (the catalog refuses such a version). */
export function mappingFor(upstream: UpstreamId, mapping: UpstreamMapping | undefined): UpstreamMapping {
  if (!mapping) throw new Error(`${upstream} generations need the version's upstream mapping`);
  return mapping;
}

/** What every adapter factory receives. */
export interface UpstreamAdapterOptions {
  /** Credentials and origin override are read from here (never from process.env directly). */
  env: NodeJS.ProcessEnv;
  /** Per-request timeout towards the upstream. */
  requestTimeoutMs?: number;
}
