/**
 * One adapter per real upstream (fal, Replicate, Runway, Google, OpenAI), each built on the upstream's official SDK:
 * the provider contract (src/providers/types.ts) with the route every call needs (`asProviderAdapter` in
 * adapters.ts). An adapter only speaks to its upstream: it never touches PostgreSQL, MinIO or Temporal.
 *
 * Errors: every method throws `ProviderError` (src/providers/types.ts) with a stable code for anything
 * the upstream answered, or the abort reason when `signal` fired.
 */
import type { UpstreamMapping } from '../../shared/upstreams';
import type { InputFile } from '../types';
import type { CallbackRequest, GenerationSnapshot, GenerationState, Submission, VerifiedCallback } from '../types';

export const UPSTREAM_IDS = ['fal', 'replicate', 'runway', 'google', 'openai'] as const;
export type UpstreamId = (typeof UPSTREAM_IDS)[number];

export function isUpstreamId(value: string): value is UpstreamId {
  return (UPSTREAM_IDS as readonly string[]).includes(value);
}

export type { UpstreamMapping } from '../../shared/upstreams';

/** A file our input refers to (an upload of ours or an external https URL), to be handed to the upstream. */
export type { InputFile } from '../types';
export type { CallbackRequest, VerifiedCallback } from '../types';
/** The upstream's view of one generation, normalised. */
export type UpstreamSnapshot = GenerationSnapshot;
export type UpstreamState = GenerationState;

/** What an upstream is sent: the submission with the route it is started on. */
export type UpstreamSubmission = Pick<Submission, 'jobId' | 'input' | 'callbackUrl' | 'deadline'> & { route: UpstreamMapping };

/** What we need to find a generation again: its id and the route it was started on. */
export interface UpstreamRef {
  id: string;
  route: UpstreamMapping;
}

/** Thrown by `verifyCallback` for an unsigned or forged callback (answered 401). */
export class CallbackRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRejected';
  }
}

export interface UpstreamAdapter {
  readonly id: UpstreamId;
  /** How a file reaches this upstream: its URL, an upload to the upstream's storage, a data: URI or inline bytes. */
  prepareFile(file: InputFile, signal: AbortSignal): Promise<unknown>;
  /**
   * Starts one paid generation and returns its first snapshot. Synchronous upstreams (OpenAI Images,
   * Imagen) return the finished `succeeded` snapshot with the result.
   * Must not retry the creating request on its own after the request may have reached the upstream.
   */
  submit(submission: UpstreamSubmission, signal: AbortSignal): Promise<UpstreamSnapshot>;
  /** The current state of a generation this adapter started. */
  status(ref: UpstreamRef, signal: AbortSignal): Promise<UpstreamSnapshot>;
  /** Stops a generation; never throws for one that is already finished or unknown. */
  cancel(ref: UpstreamRef, signal: AbortSignal): Promise<void>;
  /** Headers needed to download an output URL (Google needs its API key); none for public URLs. */
  outputHeaders?(url: string): Record<string, string> | undefined;
  /** Upstreams that send webhooks (fal, Replicate): checks the signature exactly as the upstream documents it. */
  verifyCallback?(request: CallbackRequest, signal: AbortSignal): Promise<VerifiedCallback>;
}

/** What every adapter factory receives. */
export interface UpstreamAdapterOptions {
  /** Credentials and origin override are read from here (never from process.env directly). */
  env: NodeJS.ProcessEnv;
  /** Per-request timeout towards the upstream. */
  requestTimeoutMs?: number;
}
