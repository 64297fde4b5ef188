import type { Client } from 'openapi-fetch';
import { GenmediaConnectionError, GenmediaError, GenmediaJobError } from './errors';
import { followBatch, followEvents, type FollowOptions, type OpenEventStream } from './events';
import type { paths } from './generated/openapi';
import { connect, followCursor, newIdempotencyKey, unwrap, unwrapResponse, type ConnectionOptions } from './transport';
import type {
  Account,
  CancelJobResponse,
  JobErasure,
  CapabilityGroup,
  CatalogCategory,
  CatalogModel,
  CatalogProvider,
  CostEstimate,
  Destination,
  EstimateRequest,
  Job,
  JobEvent,
  JobPage,
  JobSummary,
  JobWebhooks,
  LedgerEntry,
  LedgerPage,
  ModelDetail,
  ModelListEntry,
  OutputProvenance,
  PresignedUpload,
  ProvenanceVerification,
  Provider,
  PutDestinationRequest,
  SubmitJobRequest,
  SubmitJobResponse,
  UploadContentType,
  UploadStatus,
  WebhookRedelivery,
  Batch,
  BatchEstimate,
  BatchPage,
  BatchResultLine,
  BatchSummary,
  CreateBatchRequest,
} from './types';
import { isBatchFinal, isTerminal } from './types';
import { jsonLines } from './jsonLines';
import { fileNameOf, readSourceBytes, readUploadSource, type UploadSource } from './uploadSource';

export interface GenmediaOptions extends ConnectionOptions {
  /** Default: the `GENMEDIA_API_KEY` environment variable. */
  apiKey?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface SubmitOptions extends RequestOptions {
  /** Sent as `Idempotency-Key`; one is generated when not given, so a retried submit never charges twice. */
  idempotencyKey?: string;
}

export interface RunOptions extends SubmitOptions, Pick<FollowOptions, 'reconnectTimeoutMs'> {
  version?: string;
  webhookUrl?: string;
  webhookEvents?: SubmitJobRequest['webhookEvents'];
  /** `low`, `normal` or `high`, at most the account plan's (its default). */
  priority?: SubmitJobRequest['priority'];
  /** Seconds from now the job must be done by: not started by then, it is cancelled and refunded (`DEADLINE_EXCEEDED`). */
  cancelAfter?: number;
  /** Called once the job is accepted and charged, before any event. */
  onSubmitted?: (submitted: SubmitJobResponse) => void;
  /** Called with every event of the job: status, progress, place in line, upstream stage and queue position, estimate. */
  onProgress?: (event: JobEvent) => void;
}

export interface VerifyOptions extends RequestOptions {
  /** The file's sidecar manifest store (a WebM output's `.c2pa`): a path, a Blob or bytes. */
  manifest?: UploadSource;
}

export interface UploadOptions extends RequestOptions {
  filename?: string;
  contentType?: UploadContentType;
}

type ListJobsQuery = NonNullable<paths['/v1/jobs']['get']['parameters']['query']>;
type CatalogModelsQuery = NonNullable<paths['/v1/catalog/models']['get']['parameters']['query']>;
type ListLedgerQuery = NonNullable<paths['/v1/account/ledger']['get']['parameters']['query']>;

/**
 * The genmedia API. `api` is the typed client generated from the OpenAPI document (every endpoint); the methods
 * here are the common calls, unwrapped, throwing a GenmediaError on any error answer.
 */
export class Genmedia {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly fetch: typeof fetch;

  constructor(options: GenmediaOptions = {}) {
    ({ api: this.api, baseUrl: this.baseUrl, fetch: this.fetch } = connect(options, 'GENMEDIA_API_KEY'));
  }

  /** Charges the job's price and starts it; answers at once with the job id, cost and ETA. */
  submit(body: SubmitJobRequest, options: SubmitOptions = {}): Promise<SubmitJobResponse> {
    const headers = { 'Idempotency-Key': options.idempotencyKey ?? newIdempotencyKey() };
    return unwrap(this.api.POST('/v1/jobs/submit', { body, headers, signal: options.signal })) as Promise<SubmitJobResponse>;
  }

  /** The price a submit of the same body would charge, with its breakdown. */
  estimate(body: EstimateRequest, options: RequestOptions = {}): Promise<CostEstimate> {
    return unwrap(this.api.POST('/v1/jobs/estimate', { body, signal: options.signal }));
  }

  /** The job; with `wait` (at most 60 s) the answer is held until the job is finished or the time is up. */
  getJob(jobId: string, options: RequestOptions & { wait?: number } = {}): Promise<Job> {
    const headers = options.wait ? { Prefer: `wait=${options.wait}` } : undefined;
    return unwrap(this.api.GET('/v1/jobs/{jobId}', { params: { path: { jobId } }, headers, signal: options.signal }));
  }

  /** One page of the account's jobs, newest first. */
  listJobs(query: ListJobsQuery = {}, options: RequestOptions = {}): Promise<JobPage> {
    return unwrap(this.api.GET('/v1/jobs', { params: { query }, signal: options.signal }));
  }

  /** Every job matching `query`, newest first, fetching pages as the loop asks for them. */
  jobs(query: Omit<ListJobsQuery, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<JobSummary> {
    return followCursor((cursor) => this.listJobs({ ...query, cursor }, options), (page) => page.jobs);
  }

  /** Cancels a pending job and refunds it. */
  cancelJob(jobId: string, options: RequestOptions = {}): Promise<CancelJobResponse> {
    return unwrap(this.api.POST('/v1/jobs/{jobId}/cancel', { params: { path: { jobId } }, signal: options.signal }));
  }

  /**
   * Erases a completed, failed or cancelled job's content (outputs, input files, input, events, webhook log, workflow
   * history) and resolves once it is gone; the billing facts stay. Repeating it changes nothing. A job still running
   * is refused with JOB_NOT_TERMINAL.
   */
  deleteJob(jobId: string, options: RequestOptions = {}): Promise<JobErasure> {
    return unwrap(this.api.DELETE('/v1/jobs/{jobId}', { params: { path: { jobId } }, signal: options.signal }));
  }

  /** The Content Credentials of output `n` (1 for the first), read and validated by the service. */
  outputProvenance(jobId: string, n: number, options: RequestOptions = {}): Promise<OutputProvenance> {
    return unwrap(this.api.GET('/v1/jobs/{jobId}/outputs/{n}/provenance', { params: { path: { jobId, n } }, signal: options.signal }));
  }

  /**
   * Checks a file's Content Credentials (a path, a Blob or bytes): whether it carries a manifest, whether that is
   * valid, whether this deployment signed it, and which of your jobs made it. `manifest` is its sidecar manifest (a
   * WebM output's `.c2pa`), sent with it so that the file is checked against it.
   */
  async verifyProvenance(source: UploadSource, options: VerifyOptions = {}): Promise<ProvenanceVerification> {
    const body = await readSourceBytes(source);
    if (options.manifest === undefined) {
      return unwrap(
        this.api.POST('/v1/provenance/verify', {
          body: body as never,
          bodySerializer: (blob: unknown) => blob as Blob,
          headers: { 'content-type': 'application/octet-stream' },
          signal: options.signal,
        }),
      );
    }
    const form = new FormData();
    form.append('file', body, fileNameOf(source, 'file'));
    form.append('manifest', new Blob([await readSourceBytes(options.manifest)], { type: 'application/c2pa' }), fileNameOf(options.manifest, 'manifest.c2pa'));
    // The runtime sets the multipart content type, with its boundary, from the form.
    return unwrap(this.api.POST('/v1/provenance/verify', { body: form as never, bodySerializer: (sent: unknown) => sent as FormData, signal: options.signal }));
  }

  /** The job's events after `since`, then live ones until the terminal event; reconnects across dropped connections. */
  events(jobId: string, options: FollowOptions = {}): AsyncGenerator<JobEvent, void, undefined> {
    return followEvents(async (lastEventId, signal) => {
      const result = await unwrapResponse(
        this.api.GET('/v1/jobs/{jobId}/events', {
          params: { path: { jobId } },
          headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
          parseAs: 'stream',
          signal,
        }),
      );
      return result.status === 204 ? null : result;
    }, options);
  }

  private batchEventStream(batchId: string): OpenEventStream {
    return async (lastEventId, signal) => {
      const result = await unwrapResponse(
        this.api.GET('/v1/batches/{batchId}/events', {
          params: { path: { batchId } },
          headers: { accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'Last-Event-ID': lastEventId }) },
          parseAs: 'stream',
          signal,
        }),
      );
      return result.status === 204 ? null : result;
    };
  }

  /**
   * Submits a batch: `items` inline (up to 1,000 lines) or `fileId` of an uploaded `application/jsonl` file. Nothing is
   * charged until each item is admitted. An idempotency key (made up when not given) makes a retry answer the same
   * batch.
   */
  createBatch(body: CreateBatchRequest, options: SubmitOptions = {}): Promise<Batch> {
    const headers = { 'Idempotency-Key': options.idempotencyKey ?? newIdempotencyKey() };
    return unwrap(this.api.POST('/v1/batches', { body, headers, signal: options.signal }));
  }

  /** Validates and prices a batch's lines, with a breakdown by model; charges nothing. */
  estimateBatch(body: CreateBatchRequest, options: RequestOptions = {}): Promise<BatchEstimate> {
    return unwrap(this.api.POST('/v1/batches/estimate', { body, signal: options.signal }));
  }

  /** The batch: counts per item status, cost so far, ETA. */
  getBatch(batchId: string, options: RequestOptions = {}): Promise<Batch> {
    return unwrap(this.api.GET('/v1/batches/{batchId}', { params: { path: { batchId } }, signal: options.signal }));
  }

  /** One page of the account's batches, newest first. */
  listBatches(query: { limit?: number; cursor?: string } = {}, options: RequestOptions = {}): Promise<BatchPage> {
    return unwrap(this.api.GET('/v1/batches', { params: { query }, signal: options.signal }));
  }

  /** Every batch of the account, newest first. */
  batches(query: { limit?: number } = {}, options: RequestOptions = {}): AsyncGenerator<BatchSummary> {
    return followCursor((cursor) => this.listBatches({ ...query, cursor }, options), (page) => page.batches);
  }

  /** Stops admitting: queued items are cancelled, admitted ones not started are cancelled and refunded. */
  cancelBatch(batchId: string, options: RequestOptions = {}): Promise<Batch> {
    return unwrap(this.api.POST('/v1/batches/{batchId}/cancel', { params: { path: { batchId } }, signal: options.signal }));
  }

  /**
   * The batch now, then again whenever its counts, cost or status change (at most about one a second), until every
   * item is final; reconnects across dropped connections. `since`: the id of the last event seen.
   */
  batchEvents(batchId: string, options: FollowOptions = {}): AsyncGenerator<Batch, void, undefined> {
    return followBatch(this.batchEventStream(batchId), options);
  }

  /** Follows the batch's events until every item is final and returns it; `onProgress` sees each change. */
  async waitForBatch(batchId: string, options: RequestOptions & { onProgress?: (batch: Batch) => void; reconnectTimeoutMs?: number } = {}): Promise<Batch> {
    let last: Batch | undefined;
    for await (const batch of this.batchEvents(batchId, { signal: options.signal, reconnectTimeoutMs: options.reconnectTimeoutMs })) {
      options.onProgress?.(batch);
      last = batch;
    }
    // The stream ends only after the final batch, or with 204 when a reconnect finds it final: read it then.
    return last && isBatchFinal(last.status) ? last : this.getBatch(batchId, options);
  }

  /** The batch's results, one per item in line order, streamed; partial while the batch runs. */
  async *batchResults(batchId: string, options: RequestOptions = {}): AsyncGenerator<BatchResultLine> {
    const response = await unwrapResponse(this.api.GET('/v1/batches/{batchId}/results', { params: { path: { batchId } }, parseAs: 'stream', signal: options.signal }));
    yield* jsonLines<BatchResultLine>(response.body);
  }

  /**
   * The batch's outputs as one ZIP (each completed item's outputs named by customId, then `results.jsonl`), as the
   * response body streams it: write it to a file or pipe it on; it is never held whole in memory.
   */
  async batchArchive(batchId: string, options: RequestOptions = {}): Promise<ReadableStream<Uint8Array>> {
    const response = await unwrapResponse(this.api.GET('/v1/batches/{batchId}/archive', { params: { path: { batchId } }, parseAs: 'stream', signal: options.signal }));
    if (!response.body) throw new GenmediaError(`the archive of ${batchId} came without a body`, { code: 'EMPTY_RESPONSE', status: response.status });
    return response.body;
  }

  /**
   * Submits, follows the job's events and returns the finished job with its outputs. A dropped connection or an API
   * restart is bridged; the idempotency key makes a retried submit charge once. A failed or cancelled job throws a
   * GenmediaJobError carrying the job. Aborting `signal` stops following; the job itself goes on (see cancelJob).
   */
  async run(model: string, input: Record<string, unknown>, options: RunOptions = {}): Promise<Job> {
    const { signal } = options;
    const submitted = await this.submit(
      {
        model,
        version: options.version,
        input,
        webhookUrl: options.webhookUrl,
        webhookEvents: options.webhookEvents,
        priority: options.priority,
        ...(options.cancelAfter === undefined ? {} : { cancelAfter: options.cancelAfter }),
      },
      { idempotencyKey: options.idempotencyKey ?? newIdempotencyKey(), signal },
    );
    options.onSubmitted?.(submitted);
    let since: number | undefined;
    while (true) {
      for await (const event of this.events(submitted.jobId, { since, signal, reconnectTimeoutMs: options.reconnectTimeoutMs })) {
        since = event.sequence;
        options.onProgress?.(event);
      }
      const job = await this.getJob(submitted.jobId, { signal });
      if (job.status === 'completed') return job;
      if (isTerminal(job.status)) throw new GenmediaJobError(job);
    }
  }

  listModels(options: RequestOptions = {}): Promise<ModelListEntry[]> {
    return unwrap(this.api.GET('/v1/models', { signal: options.signal })).then((list) => list.models);
  }

  getModel(modelId: string, options: RequestOptions = {}): Promise<ModelDetail> {
    return unwrap(this.api.GET('/v1/models/{modelId}', { params: { path: { modelId } }, signal: options.signal }));
  }

  listProviders(options: RequestOptions = {}): Promise<Provider[]> {
    return unwrap(this.api.GET('/v1/providers', { signal: options.signal })).then((list) => list.providers);
  }

  /** A presigned PUT for one file (with `size`, the PUT must send exactly that many bytes); `upload()` does this and the PUT. */
  presignUpload(filename: string, contentType: UploadContentType, options: RequestOptions & { size?: number } = {}): Promise<PresignedUpload> {
    return unwrap(this.api.POST('/v1/uploads/presign', { body: { filename, contentType, size: options.size }, signal: options.signal })).then(
      (r) => r.data,
    );
  }

  /** Uploads a file and returns its `fileUrl` for job inputs (with the rest of the presign answer). */
  async upload(source: UploadSource, options: UploadOptions = {}): Promise<PresignedUpload> {
    const file = await readUploadSource(source, options);
    const presigned = await this.presignUpload(file.filename, file.contentType, { signal: options.signal, size: file.body.size });
    let response: Response;
    try {
      response = await this.fetch(presigned.uploadUrl, {
        method: 'PUT',
        body: file.body,
        headers: { 'content-type': file.contentType },
        signal: options.signal,
      });
    } catch (err) {
      if (options.signal?.aborted) throw err;
      throw new GenmediaConnectionError(err);
    }
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      throw new GenmediaError(`upload of ${file.filename} refused: ${response.status} ${text.slice(0, 200)}`, {
        code: 'UPLOAD_FAILED',
        status: response.status,
      });
    }
    return presigned;
  }

  getUpload(fileId: string, options: RequestOptions = {}): Promise<UploadStatus> {
    return unwrap(this.api.GET('/v1/uploads/{fileId}', { params: { path: { fileId } }, signal: options.signal })).then((r) => r.data);
  }

  /** The account of the key: balance, plan, jobs in flight, this key's scopes and the spend of the last 30 days. */
  getAccount(options: RequestOptions = {}): Promise<Account> {
    return unwrap(this.api.GET('/v1/account', { signal: options.signal }));
  }

  /** One page of the account's ledger (charges, refunds, top-ups), newest first. */
  listLedger(query: ListLedgerQuery = {}, options: RequestOptions = {}): Promise<LedgerPage> {
    return unwrap(this.api.GET('/v1/account/ledger', { params: { query }, signal: options.signal }));
  }

  /** Every ledger entry, newest first, fetching pages as the loop asks for them. */
  ledger(query: Omit<ListLedgerQuery, 'cursor'> = {}, options: RequestOptions = {}): AsyncGenerator<LedgerEntry> {
    return followCursor((cursor) => this.listLedger({ ...query, cursor }, options), (page) => page.entries);
  }

  /** The account's destination bucket (never its secret), or null when none is configured. */
  async getDestination(options: RequestOptions = {}): Promise<Destination | null> {
    try {
      return await unwrap(this.api.GET('/v1/account/destination', { signal: options.signal }));
    } catch (err) {
      if (err instanceof GenmediaError && err.code === 'DESTINATION_NOT_FOUND') return null;
      throw err;
    }
  }

  /**
   * Sets the account's destination bucket once a probe object was written, read back and deleted there; a refusal
   * throws a GenmediaError whose code says why (`DESTINATION_CREDENTIALS_REFUSED`, `DESTINATION_ACCESS_DENIED`, ...).
   */
  setDestination(destination: PutDestinationRequest, options: RequestOptions = {}): Promise<Destination> {
    // The server fills in the fields left out; the generated type marks every field with a default as present.
    const body = destination as Required<PutDestinationRequest>;
    return unwrap(this.api.PUT('/v1/account/destination', { body, signal: options.signal }));
  }

  /** Removes the account's destination bucket; succeeds when there is none. */
  async deleteDestination(options: RequestOptions = {}): Promise<void> {
    await unwrap(this.api.DELETE('/v1/account/destination', { signal: options.signal }));
  }

  /** The job's webhook events and every delivery attempt. */
  jobWebhooks(jobId: string, options: RequestOptions = {}): Promise<JobWebhooks> {
    return unwrap(this.api.GET('/v1/jobs/{jobId}/webhooks', { params: { path: { jobId } }, signal: options.signal }));
  }

  /** Sends the job's final webhook event again (same id and body, new signature). */
  redeliverWebhook(jobId: string, options: RequestOptions = {}): Promise<WebhookRedelivery> {
    return unwrap(this.api.POST('/v1/jobs/{jobId}/webhooks/redeliver', { params: { path: { jobId } }, signal: options.signal }));
  }

  /** The catalog's models this key may see (visibility applies as for the key's account), filtered on the server. */
  catalogModels(query: CatalogModelsQuery = {}, options: RequestOptions = {}): Promise<CatalogModel[]> {
    return unwrap(this.api.GET('/v1/catalog/models', { params: { query }, signal: options.signal }));
  }

  catalogProviders(options: RequestOptions = {}): Promise<CatalogProvider[]> {
    return unwrap(this.api.GET('/v1/catalog/providers', { signal: options.signal }));
  }

  catalogCategories(options: RequestOptions = {}): Promise<CatalogCategory[]> {
    return unwrap(this.api.GET('/v1/catalog/categories', { signal: options.signal }));
  }

  capabilityGroups(options: RequestOptions = {}): Promise<CapabilityGroup[]> {
    return unwrap(this.api.GET('/v1/catalog/capability-groups', { signal: options.signal }));
  }
}
