/** What the generation activities are built from (activities/generation/index.ts). */
import type { GenerationStore } from '../../src/jobs/generationStore';
import type { JobStore } from '../../src/jobs/store';
import type { OutputMarker } from '../../src/provenance/outputMarker';
import type { InputFile, ProviderAdapter } from '../../src/providers/types';

export interface GenerationActivityDeps {
  jobStore: Pick<JobStore, 'claim' | 'recordProgress'>;
  /** What is recorded of each attempt's generation (src/jobs/generationStore.ts). */
  generations: GenerationStore;
  adapter: ProviderAdapter;
  /** Reads a file the input refers to, for adapters that hand files over (`prepareFile`). */
  inputFile(url: string): InputFile;
  putOutput(key: string, filePath: string, contentType: string): Promise<void>;
  /** Signs each output before it is stored (Content Credentials); absent, outputs are stored as generated. */
  marker?: OutputMarker;
  /** Tells the job's workflow that the job is now processing (best effort: PostgreSQL already says so). */
  notifyStarted(jobId: string, startedAt: Date): Promise<void>;
  /**
   * How long a generation in the worker runs before the workflow is told it started (default 1 s); one that ends
   * sooner is never signalled, its result tells the workflow. A generation at an upstream tells it at once.
   */
  startedSignalDelayMs?: number;
  /** Our public callback endpoint for this provider, when one is configured and the provider sends webhooks. */
  callbackUrl?: string;
  /** Status check interval without callbacks. */
  pollIntervalMs: number;
  /** Status check interval when a callback is expected: the safety net for a lost one. */
  safetyNetPollMs: number;
  maxOutputBytes: number;
  /** Output URLs may be at private and loopback addresses (development and tests; INPUT_FETCH_ALLOW_PRIVATE). */
  allowPrivateOutputs: boolean;
  /** Multiplier on the nominal processing time of providers that generate in the worker (the tuning value providers.timeScale). */
  timeScale: number;
  /**
   * `[fail:route:<provider>]` takes a provider that is reached over the network down for the job, before anything is
   * sent, and the tokens are left out of the prompt it is sent (the tuning value providers.failureInjection; never in production).
   */
  failureInjection?: boolean;
  /** Minimum time between two progress writes to the job row. */
  progressWriteIntervalMs?: number;
  heartbeatIntervalMs?: number;
  now?: () => number;
}
