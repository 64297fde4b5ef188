import type { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { readSigningKey, SignerConfigError, type SigningKeySettings } from './lib/signingKeys';
import { findRepoRoot } from './lib/repoRoot';
import { DEFAULT_PROVIDER_TASK_QUEUE_PREFIX } from './shared/temporal';
import { DEFAULT_OUTPUT_RETENTION_MIN_SECONDS } from './shared/retention';
import { DEFAULT_JOBS_TASK_QUEUE } from './contracts/workflows/define';
import { LOCAL_NETWORKS, parseAllowedNetworks, type AllowedNetworks } from './net/allowedNetworks';

/** Repository root, from the sources or from the build in dist/: every default path is relative to it. */
export const REPO_ROOT = findRepoRoot(path.resolve(__dirname, '..'));

/** Development defaults: fine on a laptop, refused in production (see productionProblems). */
const DEV_MINIO_USER = 'genmedia';
const DEV_MINIO_PASSWORD = 'genmedia-dev-secret';
const DEV_CURSOR_SECRET = 'genmedia-dev-cursor-secret-change-me';
/** MinIO's own out-of-the-box credentials. */
const MINIO_FACTORY_PASSWORD = 'minioadmin';

const bool = z
  .enum(['0', '1', 'true', 'false', ''])
  .transform((v) => v === '1' || v === 'true');

const port = z.coerce.number().int().min(0).max(65535);

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where local state (Postgres cluster, Temporal db, MinIO data) lives. */
  GENMEDIA_DATA_DIR: z.string().default(path.join(REPO_ROOT, '.data')),

  // HTTP API
  API_HOST: z.string().default('127.0.0.1'),
  PORT: port.default(3000),
  /** Public base URL of the API, used in Location headers and file URLs. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /**
   * How long an idle keep-alive connection stays open. Longer than the idle timeout of the load balancer in front
   * (60 s on the common ones), so the balancer, not the API, closes idle connections and never reuses a closed one.
   */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().positive().default(65_000),

  // PostgreSQL
  PG_PORT: port.default(54329),
  DATABASE_URL: z.string().optional(),

  // Temporal
  TEMPORAL_ADDRESS: z.string().optional(),
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  /** Where operators open the Temporal UI (`genmedia admin jobs open`); default: this machine's TEMPORAL_UI_PORT. */
  TEMPORAL_UI_URL: z.url({ protocol: /^https?$/ }).optional(),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  JOBS_TASK_QUEUE: z.string().default(DEFAULT_JOBS_TASK_QUEUE),
  /** Provider activity task queues are `<prefix><providerId>`; tests use a private prefix. */
  PROVIDER_TASK_QUEUE_PREFIX: z.string().min(1).default(DEFAULT_PROVIDER_TASK_QUEUE_PREFIX),
  /**
   * Jobs carry their account as Temporal's fairness key, weighted by its plan (docs/operators.md). Off: every job waits
   * in one first-in, first-out line per priority, as before fair share.
   */
  TEMPORAL_FAIRNESS: bool.default(true),
  /**
   * The workflow worker joins the worker deployment TEMPORAL_DEPLOYMENT_NAME under its build id, and each workflow stays
   * on the build that started it (docs/workflow-versioning.md). Off: unversioned, every worker runs every workflow.
   */
  TEMPORAL_WORKER_VERSIONING: bool.default(true),
  TEMPORAL_DEPLOYMENT_NAME: z.string().min(1).default('genmedia'),
  /** The build id of the workflow worker; default: the package version and a digest of the workflow code. */
  WORKER_BUILD_ID: z.string().min(1).optional(),

  // MinIO
  MINIO_PORT: port.default(9000),
  MINIO_CONSOLE_PORT: port.default(9001),
  MINIO_ENDPOINT: z.string().url().optional(),
  /** Where clients reach MinIO (presigned upload and download URLs), when not at MINIO_ENDPOINT: a proxy, a public name. */
  MINIO_PUBLIC_ENDPOINT: z.string().url().optional(),
  MINIO_ROOT_USER: z.string().default(DEV_MINIO_USER),
  MINIO_ROOT_PASSWORD: z.string().default(DEV_MINIO_PASSWORD),
  /** The application's own MinIO user, limited to its buckets (production); unset → the root credentials. */
  MINIO_ACCESS_KEY: z.string().min(3).optional(),
  MINIO_SECRET_KEY: z.string().min(8).optional(),
  MINIO_REGION: z.string().default('us-east-1'),
  UPLOADS_BUCKET: z.string().default('genmedia-uploads'),
  OUTPUTS_BUCKET: z.string().default('genmedia-outputs'),

  // Uploads
  UPLOAD_PUT_WINDOW_SECONDS: z.coerce.number().int().positive().default(15 * 60),
  /** Uploads one account may have open (not yet expired) at once. */
  UPLOAD_MAX_OPEN_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
  /** Bytes one account may have reserved in open uploads: the declared size, or the kind's limit when none was declared. */
  UPLOAD_MAX_OPEN_BYTES_PER_ACCOUNT: z.coerce.number().int().positive().default(2_000_000_000),
  UPLOAD_LIFETIME_SECONDS: z.coerce.number().int().positive().default(60 * 60),
  /** How often each API process lists the uploads bucket and inspects new or replaced objects (over-size ones are deleted then). */
  UPLOAD_SWEEP_INTERVAL_MS: z.coerce.number().int().positive().default(2_000),

  // Providers
  /** Multiplier on the built-in provider's processing time (1 = the spec's 30 s / 240 s). */
  PROVIDER_TIME_SCALE: z.coerce.number().positive().default(0.1),
  /**
   * Fetch input files (image_url, ...) and upstream outputs from private and loopback addresses too: development and
   * tests only.
   */
  INPUT_FETCH_ALLOW_PRIVATE: bool.default(false),
  /** `[fail:...]` tokens in prompts make the built-in provider fail on purpose; default: on, off in production. */
  FAILURE_INJECTION: bool.optional(),
  /** Jobs one provider worker process runs at once, unless PROVIDER_CONCURRENCY names the provider. */
  PROVIDER_MAX_CONCURRENCY: z.coerce.number().int().positive().default(4),
  /** Per-provider overrides of the above: `local=4,acme=2`. */
  PROVIDER_CONCURRENCY: z.string().default(''),
  /** Per-provider task-queue rate limits, jobs started per second across all its workers: `acme=0.5`. */
  PROVIDER_RATE_LIMITS: z.string().default(''),

  /** How long an API key is trusted without asking PostgreSQL again; a revocation takes effect within this time. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(2_000),
  /** Event streams and `Prefer: wait` requests one account may hold open on one API process at once. */
  OPEN_STREAMS_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
  /** Event streams one job's signed `eventsUrl` may hold open on one API process at once (apart from its account's). */
  OPEN_STREAMS_PER_EVENTS_URL: z.coerce.number().int().positive().default(5),
  /** Event streams and `Prefer: wait` requests one API process holds open at once, all accounts together. */
  OPEN_STREAMS_TOTAL: z.coerce.number().int().positive().default(5_000),
  /** Client request bodies one API process buffers at once, all accounts together: past it, 503 with Retry-After. */
  MAX_BUFFERED_BODY_BYTES: z.coerce.number().int().positive().default(64 * 1024 * 1024),
  /** Client request bodies one account may have in reading at once, per API process: past it, 429 with Retry-After. */
  MAX_BUFFERED_BODY_BYTES_PER_ACCOUNT: z.coerce.number().int().positive().default(8 * 1024 * 1024),
  /** Upstream callback bodies one API process buffers at once (a budget of their own): past it, 503. */
  MAX_BUFFERED_CALLBACK_BYTES: z.coerce.number().int().positive().default(16 * 1024 * 1024),
  /** The longest a request body may take to arrive: past it, 408 and the connection closed. */
  REQUEST_BODY_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
  /** Origins whose pages may call the API from a browser (CORS), comma-separated; none by default. */
  CORS_ORIGINS: z.string().default(''),

  /** Job workflows the workflow worker keeps in memory; the others are replayed from their history when they move. */
  WORKFLOW_CACHE_SIZE: z.coerce.number().int().min(0).default(100),

  // Observability (docs/observability.md).
  /** Port of a worker process's /metrics (0: any free port, printed at start). */
  WORKER_METRICS_PORT: port.default(9464),
  WORKER_METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * The API's GET /metrics on a port of its own (0: any free port), not on PORT; compose sets it, as a reverse proxy
   * in front of PORT would otherwise let every client scrape.
   */
  API_METRICS_PORT: port.optional(),
  API_METRICS_HOST: z.string().default('127.0.0.1'),
  /**
   * When set, GET /metrics of the API and workers asks for `Authorization: Bearer <token>`; otherwise loopback and
   * private addresses may scrape, except on the API's client port in production, which then answers nobody.
   */
  METRICS_BEARER_TOKEN: z.string().min(16).optional(),
  /** How long a sampled task-queue backlog is reused before Temporal is asked again. */
  TASK_QUEUE_BACKLOG_SAMPLE_MS: z.coerce.number().int().positive().default(10_000),
  /** How long the sampled bytes and objects in storage are reused before PostgreSQL is asked again. */
  STORED_USAGE_SAMPLE_MS: z.coerce.number().int().positive().default(60_000),
  /** Tracing is on when one of these is set (the OpenTelemetry SDK's own variables). */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  /** `console` prints finished spans to stdout instead (local use); `none` turns tracing off. */
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_SERVICE_NAME: z.string().optional(),

  // Web console (/console)
  /** Serve the console from its sources through Vite, with hot reload (npm run dev); otherwise from console/dist. */
  CONSOLE_DEV: bool.default(false),
  /** Port of Vite's hot-reload WebSocket in CONSOLE_DEV. */
  CONSOLE_HMR_PORT: port.default(24678),
  /** A key to fill in on the console's sign-in form (npm run dev passes its dev key); ignored in production. */
  CONSOLE_DEV_API_KEY: z.string().optional(),

  // Real upstreams (fal, Replicate, Runway, Google, OpenAI); their credentials are read by src/providers/upstreams.
  /** Public origin the upstreams can reach our callback endpoint at (`https://genmedia.example.com`); unset → polling only. */
  UPSTREAM_CALLBACK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Status check interval of an upstream generation without callbacks. */
  UPSTREAM_POLL_INTERVAL_MS: z.coerce.number().int().positive().default(5_000),
  /** Status check interval while a callback is expected: the safety net for a lost callback. */
  UPSTREAM_SAFETY_NET_POLL_MS: z.coerce.number().int().positive().default(5 * 60_000),
  /** Longest an upstream generation may take before it is cancelled and the job fails (refunded). */
  UPSTREAM_TIMEOUT_SECONDS: z.coerce.number().int().positive().default(60 * 60),
  /** Per-request timeout towards an upstream. */
  UPSTREAM_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /** Largest output file taken from an upstream. */
  UPSTREAM_MAX_OUTPUT_BYTES: z.coerce.number().int().positive().default(500 * 1024 * 1024),
  /**
   * How long received upstream callbacks are remembered (to refuse a replay), in hours. A callback is refused anyway
   * once its timestamp is 5 minutes old, so one hour is already safe.
   */
  UPSTREAM_CALLBACK_RETENTION_HOURS: z.coerce.number().int().positive().default(24),

  // Self-hosted Cog servers (docs/self-hosted.md)
  /** Origin the Cog servers reach our callback endpoint at; default UPSTREAM_CALLBACK_BASE_URL, else PUBLIC_BASE_URL. */
  COG_CALLBACK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** How long a job waits in the provider worker for a free slot on a Cog server before its attempt is retried. */
  COG_SLOT_WAIT_MS: z.coerce.number().int().positive().default(60_000),
  /** How long a prediction may be gone from its server with no completed webhook before the job fails (refunded). */
  COG_MISSING_GRACE_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Where Cog servers may be: CIDR ranges, addresses and host names, comma-separated. Unset: loopback and the private
   * ranges in development and tests, nothing in production. Link-local and metadata addresses never.
   */
  COG_ALLOWED_NETWORKS: z.string().optional(),

  // Account destinations (customers' own buckets, docs/outputs.md)
  /**
   * The key that encrypts destination secrets at rest (AES-256-GCM): 32 random bytes, base64 or hex. `npm run dev`
   * generates one into the data directory; production refuses to start without it.
   */
  DESTINATION_SECRET_KEY: z.string().optional(),
  /** Allow destination endpoints on private and loopback addresses; unset: on in development or with INPUT_FETCH_ALLOW_PRIVATE. */
  DESTINATION_ALLOW_PRIVATE: bool.optional(),
  /** The longest the probe of a destination (write, read back, delete) may take before it counts as unreachable. */
  DESTINATION_PROBE_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),

  // Jobs
  /** How long a submit waits for the job's admission before giving up (and voiding it). */
  JOB_ADMISSION_TIMEOUT_MS: z.coerce.number().int().positive().default(20_000),
  /** The shortest admission deadline, while admissions take milliseconds (load shedding, docs/jobs.md). */
  JOB_ADMISSION_MIN_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
  /** Admissions one API process lets wait on Temporal at once; more are answered 503 at once. */
  JOB_ADMISSION_MAX_IN_FLIGHT: z.coerce.number().int().positive().default(64),
  /** HMAC key of the job listing cursor; any stable secret. */
  JOBS_CURSOR_SECRET: z.string().min(16).default(DEV_CURSOR_SECRET),
  /** Lifetime of the signed output URLs a job read returns. */
  OUTPUT_URL_TTL_SECONDS: z.coerce.number().int().positive().default(60 * 60),
  /** How long `POST /openai/v1/images/generations` holds the request for its jobs to finish (docs/compatible-apis.md). */
  OPENAI_IMAGES_WAIT_SECONDS: z.coerce.number().int().positive().max(3600).default(300),
  /**
   * The Replicate dialect's longest `Prefer: wait` hold, and that of a bare `Prefer: wait`. Below 60 s: Replicate's
   * clients give up reading a held answer after 60.5 s (docs/compatible-apis.md).
   */
  REPLICATE_WAIT_SECONDS: z.coerce.number().int().positive().max(59).default(55),
  /** Predictions per page of the Replicate dialect's `GET /predictions`. */
  REPLICATE_PREDICTIONS_PAGE_SIZE: z.coerce.number().int().positive().max(1000).default(100),

  // Batches (docs/batches.md)
  /** Lines one batch may hold, and the bytes of its uploaded JSONL file. */
  BATCH_MAX_ITEMS: z.coerce.number().int().positive().default(50_000),
  BATCH_MAX_FILE_BYTES: z.coerce.number().int().positive().default(100_000_000),
  /** Batches one account may have running (not yet completed, cancelled or expired) at once. */
  BATCH_MAX_OPEN_PER_ACCOUNT: z.coerce.number().int().positive().default(10),
  /** The share of an account's concurrent jobs its batch items may hold at once (at least one item runs). */
  BATCH_CONCURRENCY_SHARE: z.coerce.number().positive().max(1).default(0.5),
  /** Items one round of a batch's workflow admits at most, and the pause between rounds. */
  BATCH_ADMIT_PER_ROUND: z.coerce.number().int().positive().default(200),
  BATCH_ROUND_INTERVAL_MS: z.coerce.number().int().positive().default(1000),
  /** Rounds of a batch's workflow before it continues as new (bounds its history). */
  BATCH_ROUNDS_PER_RUN: z.coerce.number().int().positive().default(200),
  /** Least time between two events of one batch's progress stream (GET /v1/batches/{batchId}/events). */
  BATCH_EVENTS_INTERVAL_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /** How long a job's signed `eventsUrl` opens its events. */
  EVENTS_URL_TTL_SECONDS: z.coerce.number().int().positive().default(60 * 60),

  // Outputs (docs/outputs.md)
  /** The shortest `retentionSeconds` a submit may ask for; lower it for tests and development only. */
  OUTPUT_RETENTION_MIN_SECONDS: z.coerce.number().int().positive().default(DEFAULT_OUTPUT_RETENTION_MIN_SECONDS),
  /** How often the retention sweep deletes the outputs whose retention has passed (a Temporal schedule). */
  OUTPUT_RETENTION_SWEEP_INTERVAL_SECONDS: z.coerce.number().int().positive().max(600).default(60),
  /** Jobs whose outputs one step of the sweep deletes together (one DeleteObjects request per 1,000 objects). */
  OUTPUT_RETENTION_SWEEP_BATCH: z.coerce.number().int().min(1).max(10_000).default(1000),
  /** Batches one step of the sweep deletes side by side. */
  OUTPUT_RETENTION_SWEEP_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(1),

  // Provenance: Content Credentials (C2PA) on every output (docs/provenance.md)
  /** Off: outputs are stored unsigned and production starts without a chain. */
  PROVENANCE_ENABLED: bool.default(true),
  /** The signing certificate, then the certificates that issued it, PEM: the text, or a file. */
  PROVENANCE_CERT_CHAIN: z.string().optional(),
  PROVENANCE_CERT_CHAIN_FILE: z.string().optional(),
  /** The signing certificate's private key, PEM (ECDSA P-256 for ES256, or Ed25519): the text, or a file. */
  PROVENANCE_PRIVATE_KEY: z.string().optional(),
  PROVENANCE_PRIVATE_KEY_FILE: z.string().optional(),
  /**
   * The CA certificates whose signatures count as this deployment's (the verify endpoint's `signedByThisService`),
   * PEM: the text, or a file. Unset: the chain's certificates after the signing one, or the signing one alone.
   */
  PROVENANCE_TRUST_ANCHORS: z.string().optional(),
  PROVENANCE_TRUST_ANCHORS_FILE: z.string().optional(),
  /** An RFC 3161 time-stamp authority every signature is countersigned by. */
  PROVENANCE_TSA_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url({ protocol: /^https?$/ }).optional()),

  // Webhooks
  WEBHOOK_ALLOW_PRIVATE: bool.default(false),
  /** Comma-separated delays in seconds between delivery attempts (Standard Webhooks schedule). */
  WEBHOOK_RETRY_SCHEDULE: z.string().default('0,5,300,1800,7200,18000,36000,50400,72000,86400'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().default(15_000),
  /** How long after a secret rotation deliveries are also signed with the previous secret. */
  WEBHOOK_SECRET_ROTATION_WINDOW_SECONDS: z.coerce.number().int().min(0).default(24 * 60 * 60),
  /** At most this many bytes of a receiver's response body are read. */
  WEBHOOK_MAX_RESPONSE_BYTES: z.coerce.number().int().min(0).default(4096),
  /** Upper bound of a serialized webhook payload; large `input` fields are truncated to fit. */
  WEBHOOK_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(2048).default(20 * 1024),
  /** Minimum time between two `job.progress` webhooks of one job. */
  WEBHOOK_PROGRESS_INTERVAL_SECONDS: z.coerce.number().int().min(1).default(5),

  // Delivery of outputs to an account's own bucket
  /** How long after a job's completion its delivery is retried before it is given up as failed. */
  OUTPUT_DELIVERY_RETRY_SECONDS: z.coerce.number().int().min(1).default(24 * 60 * 60),
  /** The wait before the second attempt; it doubles after each failed attempt up to the maximum. */
  OUTPUT_DELIVERY_FIRST_BACKOFF_SECONDS: z.coerce.number().positive().default(5),
  OUTPUT_DELIVERY_MAX_BACKOFF_SECONDS: z.coerce.number().positive().default(10 * 60),
  /** Time one attempt (every output and the manifest) may take before it counts as failed and is tried again. */
  OUTPUT_DELIVERY_ATTEMPT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).default(30 * 60),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  logLevel: Env['LOG_LEVEL'];
  dataDir: string;
  api: {
    host: string;
    port: number;
    publicBaseUrl: string;
    keepAliveTimeoutMs: number;
    keyCacheTtlMs: number;
    openStreams: { perAccount: number; perEventsUrl: number; total: number };
    requestBodies: { maxBufferedBytes: number; maxBufferedBytesPerAccount: number; maxBufferedCallbackBytes: number; bodyTimeoutMs: number };
    corsOrigins: string[];
  };
  console: { dev: boolean; hmrPort: number; devApiKey: string | undefined };
  database: { url: string; port: number; managed: boolean };
  temporal: {
    address: string;
    port: number;
    uiPort: number;
    uiUrl: string;
    namespace: string;
    jobsTaskQueue: string;
    providerTaskQueuePrefix: string;
    /** Whether jobs start with their account as the fairness key. */
    fairness: boolean;
    workflowCacheSize: number;
    /** The worker deployment of the workflow worker; absent: unversioned. */
    deployment?: { deploymentName: string; buildId?: string };
  };
  minio: {
    /** Where the API and workers reach MinIO. */
    endpoint: string;
    /** Where clients reach it: the host presigned URLs are signed for. */
    publicEndpoint: string;
    port: number;
    consolePort: number;
    consoleUrl: string;
    accessKey: string;
    secretKey: string;
    region: string;
    uploadsBucket: string;
    outputsBucket: string;
  };
  uploads: { putWindowSeconds: number; lifetimeSeconds: number; maxOpenPerAccount: number; maxOpenBytesPerAccount: number; sweepIntervalMs: number };
  providers: {
    timeScale: number;
    /** Whether the built-in provider obeys `[fail:...]` prompt tokens. */
    failureInjection: boolean;
    /** Whether input files may be fetched from private and loopback addresses. */
    inputFetchAllowPrivate: boolean;
    defaultConcurrency: number;
    /** providerId → max concurrent jobs per worker process */
    concurrency: Record<string, number>;
    /** providerId → jobs started per second on its task queue */
    rateLimitsPerSecond: Record<string, number>;
  };
  upstreams: {
    /** Where upstreams call back (…/v1/upstreams/<id>/callback), or undefined. */
    callbackBaseUrl?: string;
    pollIntervalMs: number;
    safetyNetPollMs: number;
    timeoutSeconds: number;
    requestTimeoutMs: number;
    maxOutputBytes: number;
    callbackRetentionHours: number;
  };
  cog: {
    /** Where Cog servers post their webhooks (…/v1/upstreams/cog/callback). */
    callbackBaseUrl: string;
    slotWaitMs: number;
    missingGraceMs: number;
    /** The only networks (and host names) Cog servers are reached on: at import and on every request. */
    allowedNetworks: AllowedNetworks;
  };
  destinations: {
    /** The 32-byte key destination secrets are encrypted with; undefined outside production when it is not set. */
    secretKey: Buffer | undefined;
    allowPrivate: boolean;
    probeTimeoutMs: number;
  };
  jobs: {
    admissionTimeoutMs: number;
    admissionMinTimeoutMs: number;
    admissionMaxInFlight: number;
    cursorSecret: string;
    outputUrlTtlSeconds: number;
    eventsUrlTtlSeconds: number;
    /** The OpenAI dialect's image requests wait this long for their jobs. */
    openAiImagesWaitSeconds: number;
    /** The Replicate dialect's longest `Prefer: wait` hold. */
    replicateWaitSeconds: number;
    replicatePageSize: number;
  };
  batches: {
    maxItems: number;
    maxFileBytes: number;
    maxOpenPerAccount: number;
    concurrencyShare: number;
    admitPerRound: number;
    roundIntervalMs: number;
    roundsPerRun: number;
    eventsIntervalMs: number;
  };
  outputs: {
    retentionMinSeconds: number;
    retentionSweepIntervalSeconds: number;
    retentionSweepBatch: number;
    retentionSweepConcurrency: number;
  };
  observability: {
    workerMetricsPort: number;
    workerMetricsHost: string;
    /** Set: the API serves /metrics on this port (and host) only. */
    apiMetricsPort: number | undefined;
    apiMetricsHost: string;
    metricsBearerToken: string | undefined;
    backlogSampleMs: number;
    storedUsageSampleMs: number;
    /** Where spans go; `off` unless an OTLP endpoint or the console exporter is configured. */
    traces: 'off' | 'otlp' | 'console';
    serviceName: string | undefined;
  };
  provenance: ProvenanceConfig;
  webhooks: {
    allowPrivate: boolean;
    retryScheduleSeconds: number[];
    timeoutMs: number;
    secretRotationWindowSeconds: number;
    maxResponseBytes: number;
    maxPayloadBytes: number;
    progressIntervalSeconds: number;
  };
  outputDelivery: {
    retrySeconds: number;
    firstBackoffSeconds: number;
    maxBackoffSeconds: number;
    attemptTimeoutSeconds: number;
  };
}

export interface ProvenanceConfig {
  /** False: outputs are stored as generated (PROVENANCE_ENABLED=false). */
  enabled: boolean;
  /** The signer's key and chain; undefined when provenance is off, or outside production when none is configured. */
  signing?: SigningKeySettings;
  /** The CA certificates (PEM) whose signatures count as this deployment's. */
  trustAnchorsPem?: string;
}

export class ConfigError extends Error {}

/** A PEM setting given as text or as a file; the text wins. */
function pemSetting(variable: string, text: string | undefined, file: string | undefined): string | undefined {
  if (text) return text.replace(/\\n/g, '\n');
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`Invalid environment: ${variable}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function provenanceConfig(e: Env): ProvenanceConfig {
  if (!e.PROVENANCE_ENABLED) return { enabled: false };
  const certificateChainPem = pemSetting('PROVENANCE_CERT_CHAIN', e.PROVENANCE_CERT_CHAIN, e.PROVENANCE_CERT_CHAIN_FILE);
  const privateKeyPem = pemSetting('PROVENANCE_PRIVATE_KEY', e.PROVENANCE_PRIVATE_KEY, e.PROVENANCE_PRIVATE_KEY_FILE);
  if (certificateChainPem === undefined && privateKeyPem === undefined) {
    if (e.NODE_ENV === 'production') {
      throw new ConfigError(
        'Refusing to start in production: set PROVENANCE_CERT_CHAIN_FILE and PROVENANCE_PRIVATE_KEY_FILE (the chain and key outputs are signed with), ' +
          'or turn provenance off with PROVENANCE_ENABLED=false (docs/provenance.md)',
      );
    }
    return { enabled: true };
  }
  if (certificateChainPem === undefined || privateKeyPem === undefined) {
    throw new ConfigError('Invalid environment: PROVENANCE_CERT_CHAIN(_FILE) and PROVENANCE_PRIVATE_KEY(_FILE) go together');
  }
  const signing: SigningKeySettings = { certificateChainPem, privateKeyPem, ...(e.PROVENANCE_TSA_URL ? { timestampAuthorityUrl: e.PROVENANCE_TSA_URL } : {}) };
  let chain: X509Certificate[];
  try {
    chain = readSigningKey(signing).chain;
  } catch (err) {
    if (!(err instanceof SignerConfigError)) throw err;
    throw new ConfigError(`Invalid environment: PROVENANCE_CERT_CHAIN / PROVENANCE_PRIVATE_KEY: ${err.message}`);
  }
  const anchors = pemSetting('PROVENANCE_TRUST_ANCHORS', e.PROVENANCE_TRUST_ANCHORS, e.PROVENANCE_TRUST_ANCHORS_FILE);
  const trustAnchorsPem = anchors ?? (chain.length > 1 ? chain.slice(1) : chain).map((cert) => cert.toString()).join('');
  return { enabled: true, signing, trustAnchorsPem };
}

/** Parses `id=value,id2=value2`; values are positive numbers (integers when `integer`). */
function parseProviderMap(variable: string, raw: string, integer: boolean): Record<string, number> {
  const map: Record<string, number> = {};
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [id, value] = part.split('=').map((s) => s.trim());
    const n = Number(value);
    if (!id || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new ConfigError(`Invalid environment: ${variable} must look like "providerId=${integer ? '4' : '0.5'},other=..." (got "${part}")`);
    }
    map[id] = n;
  }
  return map;
}

/** Settings a production deployment must not leave at a value anyone can read in this repository or MinIO's docs. */
function productionProblems(e: Env): string[] {
  const problems: string[] = [];
  if (e.JOBS_CURSOR_SECRET === DEV_CURSOR_SECRET) problems.push('set JOBS_CURSOR_SECRET (it signs list cursors) to a long random string');
  if ([DEV_MINIO_PASSWORD, MINIO_FACTORY_PASSWORD].includes(e.MINIO_SECRET_KEY ?? e.MINIO_ROOT_PASSWORD)) {
    problems.push('set MINIO_ROOT_PASSWORD (or MINIO_ACCESS_KEY and MINIO_SECRET_KEY): the built-in and MinIO default passwords are public');
  }
  if (e.DESTINATION_SECRET_KEY === undefined) problems.push('set DESTINATION_SECRET_KEY (it encrypts destination secrets) to 32 random bytes, base64 (openssl rand -base64 32)');
  return problems;
}

function cogAllowedNetworks(e: Env): AllowedNetworks {
  const setting = 'COG_ALLOWED_NETWORKS';
  if (e.COG_ALLOWED_NETWORKS === undefined) return { setting, entries: e.NODE_ENV === 'production' ? [] : LOCAL_NETWORKS };
  try {
    return { setting, entries: parseAllowedNetworks(e.COG_ALLOWED_NETWORKS) };
  } catch (err) {
    throw new ConfigError(`Invalid environment: ${setting}: ${(err as Error).message}`);
  }
}

/** DESTINATION_SECRET_KEY as 32 bytes: base64 (44 characters) or hex (64). */
function destinationSecretKey(raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  const text = raw.trim();
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!/^[0-9a-f]{64}$/i.test(text) && key.toString('base64') !== text)) {
    throw new ConfigError('Invalid environment: DESTINATION_SECRET_KEY must be 32 bytes, base64 (openssl rand -base64 32) or 64 hex digits');
  }
  return key;
}

function tracesExporter(e: Env): Config['observability']['traces'] {
  if (e.OTEL_TRACES_EXPORTER === 'none') return 'off';
  if (e.OTEL_TRACES_EXPORTER === 'console') return 'console';
  const endpoint = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? e.OTEL_EXPORTER_OTLP_ENDPOINT;
  return endpoint !== undefined || e.OTEL_TRACES_EXPORTER === 'otlp' ? 'otlp' : 'off';
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid environment: ${problems}`);
  }
  const e = parsed.data;
  const unsafe = e.NODE_ENV === 'production' ? productionProblems(e) : [];
  if (unsafe.length > 0) throw new ConfigError(`Refusing to start in production: ${unsafe.join('; ')}`);
  const schedule = e.WEBHOOK_RETRY_SCHEDULE.split(',').map((s) => Number(s.trim()));
  if (schedule.length === 0 || schedule.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new ConfigError('Invalid environment: WEBHOOK_RETRY_SCHEDULE must be comma-separated non-negative seconds');
  }
  const apiHost = e.API_HOST;
  const minioEndpoint = (e.MINIO_ENDPOINT ?? `http://127.0.0.1:${e.MINIO_PORT}`).replace(/\/$/, '');
  return {
    env: e.NODE_ENV,
    logLevel: e.LOG_LEVEL,
    dataDir: e.GENMEDIA_DATA_DIR,
    api: {
      host: apiHost,
      port: e.PORT,
      publicBaseUrl: (e.PUBLIC_BASE_URL ?? `http://${apiHost}:${e.PORT}`).replace(/\/$/, ''),
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      keyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
      openStreams: { perAccount: e.OPEN_STREAMS_PER_ACCOUNT, perEventsUrl: e.OPEN_STREAMS_PER_EVENTS_URL, total: e.OPEN_STREAMS_TOTAL },
      requestBodies: {
        maxBufferedBytes: e.MAX_BUFFERED_BODY_BYTES,
        maxBufferedBytesPerAccount: e.MAX_BUFFERED_BODY_BYTES_PER_ACCOUNT,
        maxBufferedCallbackBytes: e.MAX_BUFFERED_CALLBACK_BYTES,
        bodyTimeoutMs: e.REQUEST_BODY_TIMEOUT_MS,
      },
      corsOrigins: e.CORS_ORIGINS.split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter(Boolean),
    },
    console: {
      dev: e.CONSOLE_DEV,
      hmrPort: e.CONSOLE_HMR_PORT,
      devApiKey: e.NODE_ENV === 'production' ? undefined : e.CONSOLE_DEV_API_KEY,
    },
    database: {
      url: e.DATABASE_URL ?? `postgresql://genmedia:genmedia@127.0.0.1:${e.PG_PORT}/genmedia`,
      port: e.PG_PORT,
      managed: e.DATABASE_URL === undefined,
    },
    temporal: {
      address: e.TEMPORAL_ADDRESS ?? `127.0.0.1:${e.TEMPORAL_PORT}`,
      port: e.TEMPORAL_PORT,
      uiPort: e.TEMPORAL_UI_PORT,
      uiUrl: (e.TEMPORAL_UI_URL ?? `http://127.0.0.1:${e.TEMPORAL_UI_PORT}`).replace(/\/+$/, ''),
      namespace: e.TEMPORAL_NAMESPACE,
      jobsTaskQueue: e.JOBS_TASK_QUEUE,
      providerTaskQueuePrefix: e.PROVIDER_TASK_QUEUE_PREFIX,
      fairness: e.TEMPORAL_FAIRNESS,
      workflowCacheSize: e.WORKFLOW_CACHE_SIZE,
      ...(e.TEMPORAL_WORKER_VERSIONING ? { deployment: { deploymentName: e.TEMPORAL_DEPLOYMENT_NAME, ...(e.WORKER_BUILD_ID ? { buildId: e.WORKER_BUILD_ID } : {}) } } : {}),
    },
    minio: {
      endpoint: minioEndpoint,
      publicEndpoint: (e.MINIO_PUBLIC_ENDPOINT ?? minioEndpoint).replace(/\/$/, ''),
      port: e.MINIO_PORT,
      consolePort: e.MINIO_CONSOLE_PORT,
      consoleUrl: `http://127.0.0.1:${e.MINIO_CONSOLE_PORT}`,
      accessKey: e.MINIO_ACCESS_KEY ?? e.MINIO_ROOT_USER,
      secretKey: e.MINIO_SECRET_KEY ?? e.MINIO_ROOT_PASSWORD,
      region: e.MINIO_REGION,
      uploadsBucket: e.UPLOADS_BUCKET,
      outputsBucket: e.OUTPUTS_BUCKET,
    },
    uploads: {
      putWindowSeconds: e.UPLOAD_PUT_WINDOW_SECONDS,
      lifetimeSeconds: e.UPLOAD_LIFETIME_SECONDS,
      maxOpenPerAccount: e.UPLOAD_MAX_OPEN_PER_ACCOUNT,
      maxOpenBytesPerAccount: e.UPLOAD_MAX_OPEN_BYTES_PER_ACCOUNT,
      sweepIntervalMs: e.UPLOAD_SWEEP_INTERVAL_MS,
    },
    providers: {
      timeScale: e.PROVIDER_TIME_SCALE,
      failureInjection: e.FAILURE_INJECTION ?? e.NODE_ENV !== 'production',
      inputFetchAllowPrivate: e.INPUT_FETCH_ALLOW_PRIVATE,
      defaultConcurrency: e.PROVIDER_MAX_CONCURRENCY,
      concurrency: parseProviderMap('PROVIDER_CONCURRENCY', e.PROVIDER_CONCURRENCY, true),
      rateLimitsPerSecond: parseProviderMap('PROVIDER_RATE_LIMITS', e.PROVIDER_RATE_LIMITS, false),
    },
    upstreams: {
      callbackBaseUrl: e.UPSTREAM_CALLBACK_BASE_URL?.replace(/\/+$/, ''),
      pollIntervalMs: e.UPSTREAM_POLL_INTERVAL_MS,
      safetyNetPollMs: e.UPSTREAM_SAFETY_NET_POLL_MS,
      timeoutSeconds: e.UPSTREAM_TIMEOUT_SECONDS,
      requestTimeoutMs: e.UPSTREAM_REQUEST_TIMEOUT_MS,
      maxOutputBytes: e.UPSTREAM_MAX_OUTPUT_BYTES,
      callbackRetentionHours: e.UPSTREAM_CALLBACK_RETENTION_HOURS,
    },
    cog: {
      callbackBaseUrl: (e.COG_CALLBACK_BASE_URL ?? e.UPSTREAM_CALLBACK_BASE_URL ?? e.PUBLIC_BASE_URL ?? `http://${apiHost}:${e.PORT}`).replace(/\/+$/, ''),
      slotWaitMs: e.COG_SLOT_WAIT_MS,
      missingGraceMs: e.COG_MISSING_GRACE_MS,
      allowedNetworks: cogAllowedNetworks(e),
    },
    destinations: {
      secretKey: destinationSecretKey(e.DESTINATION_SECRET_KEY),
      allowPrivate: e.DESTINATION_ALLOW_PRIVATE ?? (e.NODE_ENV === 'development' || e.INPUT_FETCH_ALLOW_PRIVATE),
      probeTimeoutMs: e.DESTINATION_PROBE_TIMEOUT_MS,
    },
    jobs: {
      admissionTimeoutMs: e.JOB_ADMISSION_TIMEOUT_MS,
      admissionMinTimeoutMs: e.JOB_ADMISSION_MIN_TIMEOUT_MS,
      admissionMaxInFlight: e.JOB_ADMISSION_MAX_IN_FLIGHT,
      cursorSecret: e.JOBS_CURSOR_SECRET,
      outputUrlTtlSeconds: e.OUTPUT_URL_TTL_SECONDS,
      eventsUrlTtlSeconds: e.EVENTS_URL_TTL_SECONDS,
      openAiImagesWaitSeconds: e.OPENAI_IMAGES_WAIT_SECONDS,
      replicateWaitSeconds: e.REPLICATE_WAIT_SECONDS,
      replicatePageSize: e.REPLICATE_PREDICTIONS_PAGE_SIZE,
    },
    batches: {
      maxItems: e.BATCH_MAX_ITEMS,
      maxFileBytes: e.BATCH_MAX_FILE_BYTES,
      maxOpenPerAccount: e.BATCH_MAX_OPEN_PER_ACCOUNT,
      concurrencyShare: e.BATCH_CONCURRENCY_SHARE,
      admitPerRound: e.BATCH_ADMIT_PER_ROUND,
      roundIntervalMs: e.BATCH_ROUND_INTERVAL_MS,
      roundsPerRun: e.BATCH_ROUNDS_PER_RUN,
      eventsIntervalMs: e.BATCH_EVENTS_INTERVAL_MS,
    },
    outputs: {
      retentionMinSeconds: e.OUTPUT_RETENTION_MIN_SECONDS,
      retentionSweepIntervalSeconds: e.OUTPUT_RETENTION_SWEEP_INTERVAL_SECONDS,
      retentionSweepBatch: e.OUTPUT_RETENTION_SWEEP_BATCH,
      retentionSweepConcurrency: e.OUTPUT_RETENTION_SWEEP_CONCURRENCY,
    },
    observability: {
      workerMetricsPort: e.WORKER_METRICS_PORT,
      workerMetricsHost: e.WORKER_METRICS_HOST,
      apiMetricsPort: e.API_METRICS_PORT,
      apiMetricsHost: e.API_METRICS_HOST,
      metricsBearerToken: e.METRICS_BEARER_TOKEN,
      backlogSampleMs: e.TASK_QUEUE_BACKLOG_SAMPLE_MS,
      storedUsageSampleMs: e.STORED_USAGE_SAMPLE_MS,
      traces: tracesExporter(e),
      serviceName: e.OTEL_SERVICE_NAME,
    },
    provenance: provenanceConfig(e),
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      retryScheduleSeconds: schedule,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      secretRotationWindowSeconds: e.WEBHOOK_SECRET_ROTATION_WINDOW_SECONDS,
      maxResponseBytes: e.WEBHOOK_MAX_RESPONSE_BYTES,
      maxPayloadBytes: e.WEBHOOK_MAX_PAYLOAD_BYTES,
      progressIntervalSeconds: e.WEBHOOK_PROGRESS_INTERVAL_SECONDS,
    },
    outputDelivery: {
      retrySeconds: e.OUTPUT_DELIVERY_RETRY_SECONDS,
      firstBackoffSeconds: e.OUTPUT_DELIVERY_FIRST_BACKOFF_SECONDS,
      maxBackoffSeconds: Math.max(e.OUTPUT_DELIVERY_MAX_BACKOFF_SECONDS, e.OUTPUT_DELIVERY_FIRST_BACKOFF_SECONDS),
      attemptTimeoutSeconds: e.OUTPUT_DELIVERY_ATTEMPT_TIMEOUT_SECONDS,
    },
  };
}
