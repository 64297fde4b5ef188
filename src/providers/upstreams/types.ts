/**
 * The contract between the generic upstream layer (activities/upstream.ts, the callback route) and one
 * adapter per real upstream (fal, Replicate, Runway, Google, OpenAI), each built on the upstream's
 * official SDK. An adapter only speaks to its upstream: it never touches PostgreSQL, MinIO or Temporal.
 *
 * Errors: every method throws `ProviderError` (src/providers/types.ts) with a stable code for anything
 * the upstream answered, or the abort reason when `signal` fired.
 */
import type { UpstreamRoute } from '../../shared/upstreams';
import type { ProviderError } from '../types';

export const UPSTREAM_IDS = ['fal', 'replicate', 'runway', 'google', 'openai'] as const;
export type UpstreamId = (typeof UPSTREAM_IDS)[number];

export function isUpstreamId(value: string): value is UpstreamId {
  return (UPSTREAM_IDS as readonly string[]).includes(value);
}

export type { UpstreamRoute } from '../../shared/upstreams';

/** A file our input refers to (an upload of ours or an external https URL), to be handed to the upstream. */
import type { InputFile } from '../inputFileReader';

export type { InputFile };

export interface UpstreamSubmission {
  /** Our job id: the idempotency key where the upstream takes one, and a label in its dashboard. */
  jobId: string;
  route: UpstreamRoute;
  /** The mapped input, files already prepared by `prepareFile`. */
  input: Record<string, unknown>;
  /** Where the upstream should send its webhooks, when we have a public callback URL (fal, Replicate). */
  callbackUrl?: string;
  /** Instant after which the generation is of no use to us (Replicate `Cancel-After`). */
  deadline: Date;
}

/** What we need to find a generation again: its id and the route it was started on. */
export interface UpstreamRef {
  id: string;
  route: UpstreamRoute;
}

export type UpstreamState = 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';

/** The upstream's view of one generation, normalised. */
export interface UpstreamSnapshot {
  /** The upstream generation id (fal request id, Replicate prediction id, Runway task id, Google operation name). */
  id: string;
  state: UpstreamState;
  /** 0..100 when the upstream reports progress (Runway `progress`, Replicate log percentages). */
  progress?: number;
  /** Position in the upstream's queue when it says (fal `queue_position`). */
  queuePosition?: number;
  /** A short human description of where the generation is: the upstream status or its last log line. */
  stage?: string;
  /** The upstream's answer once `succeeded`; `UpstreamRoute.outputs` locate the files in it. */
  result?: unknown;
  /** Why it failed, when `failed`: a classified ProviderError (content policy, rejected input, ...). */
  error?: ProviderError;
  /** What the upstream says this generation cost, in micro-cents, when it says. */
  upstreamCostMicroCents?: number;
}

/** A verified callback: which generation it is about and an id to refuse a replay with. */
export interface VerifiedCallback {
  upstreamId: string;
  /** Unique per delivery (Replicate `webhook-id`; fal request id + timestamp). */
  callbackId: string;
  /** What the callback says the state is (informational: the job re-reads the status). */
  state?: UpstreamState;
}

/** Thrown by `verifyCallback` for an unsigned or forged callback (answered 401). */
export class CallbackRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CallbackRejected';
  }
}

export interface CallbackRequest {
  /** Lower-cased header names. */
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
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
