import type { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { listSettings, readSettings, setting, type SettingValues } from './lib/envSettings';
import { parseCertificates, readSigningKey, SignerConfigError, type SigningKeySettings } from './lib/signingKeys';
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
const positiveInt = z.coerce.number().int().positive();
const positive = z.coerce.number().positive();
const httpUrl = z.url({ protocol: /^https?$/ });

/** `id=value,id2=value2` into a map; values are positive numbers (integers when `integer`). */
function providerMap(integer: boolean) {
  return z
    .string()
    .default('')
    .transform((raw, ctx) => {
      const map: Record<string, number> = {};
      for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
        const [id, value] = part.split('=').map((s) => s.trim());
        const n = Number(value);
        if (!id || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
          ctx.addIssue({ code: 'custom', message: `must look like "providerId=${integer ? '4' : '0.5'},other=..." (got "${part}")` });
          return z.NEVER;
        }
        map[id] = n;
      }
      return map;
    });
}

/** 32 bytes: base64 (44 characters) or hex (64). */
const secretKey32 = z
  .string()
  .optional()
  .transform((raw, ctx): Buffer | undefined => {
    if (raw === undefined) return undefined;
    const text = raw.trim();
    const hex = /^[0-9a-f]{64}$/i.test(text);
    const key = hex ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32 || (!hex && key.toString('base64') !== text)) {
      ctx.addIssue({ code: 'custom', message: 'must be 32 bytes, base64 (openssl rand -base64 32) or 64 hex digits' });
      return z.NEVER;
    }
    return key;
  });

/**
 * Every setting the services read from the environment, once: its variable, its schema with the default, and, by its
 * place here, the field of the configuration it fills. A few fields are then worked out from several settings
 * (resolveConfig); each is said there.
 */
export const SETTINGS = {
  env: setting('NODE_ENV', z.enum(['development', 'test', 'production']).default('development')),
  logLevel: setting('LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  /** Where local state (Postgres cluster, Temporal db, MinIO data) lives. */
  dataDir: setting('GENMEDIA_DATA_DIR', z.string().default(path.join(REPO_ROOT, '.data'))),

  api: {
    host: setting('API_HOST', z.string().default('127.0.0.1')),
    port: setting('PORT', port.default(3000)),
    /** Public base URL of the API, used in Location headers and file URLs; default `http://<host>:<port>`. */
    publicBaseUrl: setting('PUBLIC_BASE_URL', z.string().url().optional()),
    /**
     * How long an idle keep-alive connection stays open. Longer than the idle timeout of the load balancer in front
     * (60 s on the common ones), so the balancer, not the API, closes idle connections and never reuses a closed one.
     */
    keepAliveTimeoutMs: setting('HTTP_KEEP_ALIVE_TIMEOUT_MS', positiveInt.default(65_000)),
    /** How long an API key is trusted without asking PostgreSQL again; a revocation takes effect within this time. */
    keyCacheTtlMs: setting('API_KEY_CACHE_TTL_MS', z.coerce.number().int().min(0).default(2_000)),
    openStreams: {
      /** Event streams and `Prefer: wait` requests one account may hold open on one API process at once. */
      perAccount: setting('OPEN_STREAMS_PER_ACCOUNT', positiveInt.default(100)),
      /** Event streams one job's signed `eventsUrl` may hold open on one API process at once (apart from its account's). */
      perEventsUrl: setting('OPEN_STREAMS_PER_EVENTS_URL', positiveInt.default(5)),
      /** Event streams and `Prefer: wait` requests one API process holds open at once, all accounts together. */
      total: setting('OPEN_STREAMS_TOTAL', positiveInt.default(5_000)),
    },
    requestBodies: {
      /** Client request bodies one API process buffers at once, all accounts together: past it, 503 with Retry-After. */
      maxBufferedBytes: setting('MAX_BUFFERED_BODY_BYTES', positiveInt.default(64 * 1024 * 1024)),
      /** Client request bodies one account may have in reading at once, per API process: past it, 429 with Retry-After. */
      maxBufferedBytesPerAccount: setting('MAX_BUFFERED_BODY_BYTES_PER_ACCOUNT', positiveInt.default(8 * 1024 * 1024)),
      /** Upstream callback bodies one API process buffers at once (a budget of their own): past it, 503. */
      maxBufferedCallbackBytes: setting('MAX_BUFFERED_CALLBACK_BYTES', positiveInt.default(16 * 1024 * 1024)),
      /** The longest a request body may take to arrive: past it, 408 and the connection closed. */
      bodyTimeoutMs: setting('REQUEST_BODY_TIMEOUT_MS', positiveInt.default(10_000)),
    },
    /** Origins whose pages may call the API from a browser (CORS), comma-separated; none by default. */
    corsOrigins: setting(
      'CORS_ORIGINS',
      z
        .string()
        .default('')
        .transform((raw) => raw.split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter(Boolean)),
    ),
  },

  // Web console (/console)
  console: {
    /** Serve the console from its sources through Vite, with hot reload (npm run dev); otherwise from console/dist. */
    dev: setting('CONSOLE_DEV', bool.default(false)),
    /** Port of Vite's hot-reload WebSocket in CONSOLE_DEV. */
    hmrPort: setting('CONSOLE_HMR_PORT', port.default(24678)),
    /** A key to fill in on the console's sign-in form (npm run dev passes its dev key); ignored in production. */
    devApiKey: setting('CONSOLE_DEV_API_KEY', z.string().optional()),
  },

  database: {
    /** Unset: the project's own cluster on `port`. */
    url: setting('DATABASE_URL', z.string().optional()),
    port: setting('PG_PORT', port.default(54329)),
  },

  temporal: {
    /** Unset: the dev server on this machine's `port`. */
    address: setting('TEMPORAL_ADDRESS', z.string().optional()),
    port: setting('TEMPORAL_PORT', port.default(7233)),
    uiPort: setting('TEMPORAL_UI_PORT', port.default(8233)),
    /** Where operators open the Temporal UI (`genmedia admin jobs open`); default: this machine's TEMPORAL_UI_PORT. */
    uiUrl: setting('TEMPORAL_UI_URL', httpUrl.optional()),
    namespace: setting('TEMPORAL_NAMESPACE', z.string().default('default')),
    jobsTaskQueue: setting('JOBS_TASK_QUEUE', z.string().default(DEFAULT_JOBS_TASK_QUEUE)),
    /** Provider activity task queues are `<prefix><providerId>`; tests use a private prefix. */
    providerTaskQueuePrefix: setting('PROVIDER_TASK_QUEUE_PREFIX', z.string().min(1).default(DEFAULT_PROVIDER_TASK_QUEUE_PREFIX)),
    /**
     * Jobs carry their account as Temporal's fairness key, weighted by its plan (docs/operators.md). Off: every job waits
     * in one first-in, first-out line per priority, as before fair share.
     */
    fairness: setting('TEMPORAL_FAIRNESS', bool.default(true)),
    /** Job workflows the workflow worker keeps in memory; the others are replayed from their history when they move. */
    workflowCacheSize: setting('WORKFLOW_CACHE_SIZE', z.coerce.number().int().min(0).default(100)),
    deployment: {
      /**
       * The workflow worker joins the worker deployment TEMPORAL_DEPLOYMENT_NAME under its build id, and each workflow
       * stays on the build that started it (docs/workflow-versioning.md). Off: unversioned, every worker runs every workflow.
       */
      versioning: setting('TEMPORAL_WORKER_VERSIONING', bool.default(true)),
      deploymentName: setting('TEMPORAL_DEPLOYMENT_NAME', z.string().min(1).default('genmedia')),
      /** The build id of the workflow worker; default: the package version and a digest of the workflow code. */
      buildId: setting('WORKER_BUILD_ID', z.string().min(1).optional()),
    },
  },

  minio: {
    /** Where the API and workers reach MinIO; default: this machine's `port`. */
    endpoint: setting('MINIO_ENDPOINT', z.string().url().optional()),
    /** Where clients reach MinIO (presigned upload and download URLs), when not at MINIO_ENDPOINT: a proxy, a public name. */
    publicEndpoint: setting('MINIO_PUBLIC_ENDPOINT', z.string().url().optional()),
    port: setting('MINIO_PORT', port.default(9000)),
    consolePort: setting('MINIO_CONSOLE_PORT', port.default(9001)),
    rootUser: setting('MINIO_ROOT_USER', z.string().default(DEV_MINIO_USER)),
    rootPassword: setting('MINIO_ROOT_PASSWORD', z.string().default(DEV_MINIO_PASSWORD)),
    /** The application's own MinIO user, limited to its buckets (production); unset → the root credentials. */
    accessKey: setting('MINIO_ACCESS_KEY', z.string().min(3).optional()),
    secretKey: setting('MINIO_SECRET_KEY', z.string().min(8).optional()),
    region: setting('MINIO_REGION', z.string().default('us-east-1')),
    uploadsBucket: setting('UPLOADS_BUCKET', z.string().default('genmedia-uploads')),
    outputsBucket: setting('OUTPUTS_BUCKET', z.string().default('genmedia-outputs')),
  },

  uploads: {
    putWindowSeconds: setting('UPLOAD_PUT_WINDOW_SECONDS', positiveInt.default(15 * 60)),
    lifetimeSeconds: setting('UPLOAD_LIFETIME_SECONDS', positiveInt.default(60 * 60)),
    /** Uploads one account may have open (not yet expired) at once. */
    maxOpenPerAccount: setting('UPLOAD_MAX_OPEN_PER_ACCOUNT', positiveInt.default(100)),
    /** Bytes one account may have reserved in open uploads: the declared size, or the kind's limit when none was declared. */
    maxOpenBytesPerAccount: setting('UPLOAD_MAX_OPEN_BYTES_PER_ACCOUNT', positiveInt.default(2_000_000_000)),
    /** How often each API process lists the uploads bucket and inspects new or replaced objects (over-size ones are deleted then). */
    sweepIntervalMs: setting('UPLOAD_SWEEP_INTERVAL_MS', positiveInt.default(2_000)),
  },

  providers: {
    /** Multiplier on the built-in provider's processing time (1 = the spec's 30 s / 240 s). */
    timeScale: setting('PROVIDER_TIME_SCALE', positive.default(0.1)),
    /** Whether `[fail:...]` tokens in prompts make the built-in provider fail on purpose; default: on, off in production. */
    failureInjection: setting('FAILURE_INJECTION', bool.optional()),
    /**
     * Whether input files (image_url, ...) and upstream outputs may be fetched from private and loopback addresses too:
     * development and tests only (refused in production). Link-local and metadata addresses never.
     */
    inputFetchAllowPrivate: setting('INPUT_FETCH_ALLOW_PRIVATE', bool.default(false)),
    /** Jobs one provider worker process runs at once, unless PROVIDER_CONCURRENCY names the provider. */
    defaultConcurrency: setting('PROVIDER_MAX_CONCURRENCY', positiveInt.default(4)),
    /** Per-provider overrides of the above, providerId → max concurrent jobs per worker process: `local=4,acme=2`. */
    concurrency: setting('PROVIDER_CONCURRENCY', providerMap(true)),
    /** Per-provider task-queue rate limits, providerId → jobs started per second across all its workers: `acme=0.5`. */
    rateLimitsPerSecond: setting('PROVIDER_RATE_LIMITS', providerMap(false)),
  },

  // Real upstreams (fal, Replicate, Runway, Google, OpenAI); their credentials are read by src/providers/upstreams.
  upstreams: {
    /**
     * Public origin the upstreams can reach our callback endpoint at (`https://genmedia.example.com`), where they call
     * back (…/v1/providers/<id>/callback); unset → polling only.
     */
    callbackBaseUrl: setting('UPSTREAM_CALLBACK_BASE_URL', httpUrl.optional().transform((url) => url?.replace(/\/+$/, ''))),
    /** Status check interval of an upstream generation without callbacks. */
    pollIntervalMs: setting('UPSTREAM_POLL_INTERVAL_MS', positiveInt.default(5_000)),
    /** Status check interval while a callback is expected: the safety net for a lost callback. */
    safetyNetPollMs: setting('UPSTREAM_SAFETY_NET_POLL_MS', positiveInt.default(5 * 60_000)),
    /** Longest an upstream generation may take before it is cancelled and the job fails (refunded). */
    timeoutSeconds: setting('UPSTREAM_TIMEOUT_SECONDS', positiveInt.default(60 * 60)),
    /** Per-request timeout towards an upstream. */
    requestTimeoutMs: setting('UPSTREAM_REQUEST_TIMEOUT_MS', positiveInt.default(60_000)),
    /** Largest output file taken from an upstream. */
    maxOutputBytes: setting('UPSTREAM_MAX_OUTPUT_BYTES', positiveInt.default(500 * 1024 * 1024)),
    /**
     * How long received upstream callbacks are remembered (to refuse a replay), in hours. A callback is refused anyway
     * once its timestamp is 5 minutes old, so one hour is already safe.
     */
    callbackRetentionHours: setting('UPSTREAM_CALLBACK_RETENTION_HOURS', positiveInt.default(24)),
  },

  // Self-hosted Cog servers (docs/self-hosted.md)
  cog: {
    /**
     * Origin the Cog servers post their webhooks to (…/v1/providers/cog/callback); default UPSTREAM_CALLBACK_BASE_URL,
     * else PUBLIC_BASE_URL.
     */
    callbackBaseUrl: setting('COG_CALLBACK_BASE_URL', httpUrl.optional()),
    /** How long a job waits in the provider worker for a free slot on a Cog server before its attempt is retried. */
    slotWaitMs: setting('COG_SLOT_WAIT_MS', positiveInt.default(60_000)),
    /** How long a prediction may be gone from its server with no completed webhook before the job fails (refunded). */
    missingGraceMs: setting('COG_MISSING_GRACE_MS', positiveInt.default(60_000)),
    /**
     * The only networks (and host names) Cog servers are reached on, at import and on every request: CIDR ranges,
     * addresses and host names, comma-separated. Unset: loopback and the private ranges in development and tests,
     * nothing in production. Link-local and metadata addresses never.
     */
    allowedNetworks: setting(
      'COG_ALLOWED_NETWORKS',
      z
        .string()
        .optional()
        .transform((raw, ctx) => {
          if (raw === undefined) return undefined;
          try {
            return parseAllowedNetworks(raw);
          } catch (err) {
            ctx.addIssue({ code: 'custom', message: (err as Error).message });
            return z.NEVER;
          }
        }),
    ),
  },

  // Account destinations (customers' own buckets, docs/outputs.md)
  destinations: {
    /**
     * The key that encrypts destination secrets at rest (AES-256-GCM): 32 random bytes, base64 or hex. `npm run dev`
     * generates one into the data directory; production refuses to start without it.
     */
    secretKey: setting('DESTINATION_SECRET_KEY', secretKey32),
    /**
     * Allow destination endpoints on private and loopback addresses; unset: on in development or with
     * INPUT_FETCH_ALLOW_PRIVATE. Refused in production; link-local and metadata addresses never.
     */
    allowPrivate: setting('DESTINATION_ALLOW_PRIVATE', bool.optional()),
    /** The longest the probe of a destination (write, read back, delete) may take before it counts as unreachable. */
    probeTimeoutMs: setting('DESTINATION_PROBE_TIMEOUT_MS', positiveInt.default(15_000)),
    /** How many destination probes (each a write, read and delete at the endpoint) an account may send an hour. */
    probesPerHour: setting('DESTINATION_PROBES_PER_HOUR', positiveInt.default(20)),
  },

  jobs: {
    /** How long a submit waits for the job's admission before giving up (and voiding it). */
    admissionTimeoutMs: setting('JOB_ADMISSION_TIMEOUT_MS', positiveInt.default(20_000)),
    /** The shortest admission deadline, while admissions take milliseconds (load shedding, docs/jobs.md). */
    admissionMinTimeoutMs: setting('JOB_ADMISSION_MIN_TIMEOUT_MS', positiveInt.default(5_000)),
    /** Admissions one API process lets wait on Temporal at once; more are answered 503 at once. */
    admissionMaxInFlight: setting('JOB_ADMISSION_MAX_IN_FLIGHT', positiveInt.default(64)),
    /** HMAC key of the job listing cursor; any stable secret. */
    cursorSecret: setting('JOBS_CURSOR_SECRET', z.string().min(16).default(DEV_CURSOR_SECRET)),
    /** Lifetime of the signed output URLs a job read returns. */
    outputUrlTtlSeconds: setting('OUTPUT_URL_TTL_SECONDS', positiveInt.default(60 * 60)),
    /** How long a job's signed `eventsUrl` opens its events. */
    eventsUrlTtlSeconds: setting('EVENTS_URL_TTL_SECONDS', positiveInt.default(60 * 60)),
    /** How long `POST /openai/v1/images/generations` holds the request for its jobs to finish (docs/compatible-apis.md). */
    openAiImagesWaitSeconds: setting('OPENAI_IMAGES_WAIT_SECONDS', positiveInt.max(3600).default(300)),
    /**
     * The Replicate dialect's longest `Prefer: wait` hold, and that of a bare `Prefer: wait`. Below 60 s: Replicate's
     * clients give up reading a held answer after 60.5 s (docs/compatible-apis.md).
     */
    replicateWaitSeconds: setting('REPLICATE_WAIT_SECONDS', positiveInt.max(59).default(55)),
    /** Predictions per page of the Replicate dialect's `GET /predictions`. */
    replicatePageSize: setting('REPLICATE_PREDICTIONS_PAGE_SIZE', positiveInt.max(1000).default(100)),
  },

  // Batches (docs/batches.md)
  batches: {
    /** Lines one batch may hold. */
    maxItems: setting('BATCH_MAX_ITEMS', positiveInt.default(50_000)),
    /** Bytes of a batch's uploaded JSONL file. */
    maxFileBytes: setting('BATCH_MAX_FILE_BYTES', positiveInt.default(100_000_000)),
    /** Batches one account may have running (not yet completed, cancelled or expired) at once. */
    maxOpenPerAccount: setting('BATCH_MAX_OPEN_PER_ACCOUNT', positiveInt.default(10)),
    /** The share of an account's concurrent jobs its batch items may hold at once (at least one item runs). */
    concurrencyShare: setting('BATCH_CONCURRENCY_SHARE', positive.max(1).default(0.5)),
    /** Items one round of a batch's workflow admits at most. */
    admitPerRound: setting('BATCH_ADMIT_PER_ROUND', positiveInt.default(1000)),
    /** The pause between two rounds of a batch's workflow. */
    roundIntervalMs: setting('BATCH_ROUND_INTERVAL_MS', positiveInt.default(1000)),
    /** Rounds of a batch's workflow before it continues as new (bounds its history). */
    roundsPerRun: setting('BATCH_ROUNDS_PER_RUN', positiveInt.default(200)),
    /** Least time between two events of a batch's progress stream. */
    eventsIntervalMs: setting('BATCH_EVENTS_INTERVAL_MS', z.coerce.number().int().min(100).max(60_000).default(1000)),
  },

  // Outputs (docs/outputs.md)
  outputs: {
    /** The shortest `retentionSeconds` a submit may ask for; lower it for tests and development only. */
    retentionMinSeconds: setting('OUTPUT_RETENTION_MIN_SECONDS', positiveInt.default(DEFAULT_OUTPUT_RETENTION_MIN_SECONDS)),
    /** How often the retention sweep deletes the outputs whose retention has passed (a Temporal schedule). */
    retentionSweepIntervalSeconds: setting('OUTPUT_RETENTION_SWEEP_INTERVAL_SECONDS', positiveInt.max(600).default(60)),
    /** Jobs whose outputs one step of the sweep deletes together (one DeleteObjects request per 1,000 objects). */
    retentionSweepBatch: setting('OUTPUT_RETENTION_SWEEP_BATCH', z.coerce.number().int().min(1).max(10_000).default(1000)),
    /** Batches one step of the sweep deletes side by side. */
    retentionSweepConcurrency: setting('OUTPUT_RETENTION_SWEEP_CONCURRENCY', z.coerce.number().int().min(1).max(32).default(1)),
  },

  // Observability (docs/observability.md).
  observability: {
    /** Port of a worker process's /metrics (0: any free port, printed at start). */
    workerMetricsPort: setting('WORKER_METRICS_PORT', port.default(9464)),
    workerMetricsHost: setting('WORKER_METRICS_HOST', z.string().default('127.0.0.1')),
    /**
     * Set: the API's GET /metrics on a port of its own (0: any free port), not on PORT; compose sets it, as a reverse
     * proxy in front of PORT would otherwise let every client scrape.
     */
    apiMetricsPort: setting('API_METRICS_PORT', port.optional()),
    apiMetricsHost: setting('API_METRICS_HOST', z.string().default('127.0.0.1')),
    /**
     * When set, GET /metrics of the API and workers asks for `Authorization: Bearer <token>`; otherwise loopback and
     * private addresses may scrape, except on the API's client port in production, which then answers nobody.
     */
    metricsBearerToken: setting('METRICS_BEARER_TOKEN', z.string().min(16).optional()),
    /** How long a sampled task-queue backlog is reused before Temporal is asked again. */
    backlogSampleMs: setting('TASK_QUEUE_BACKLOG_SAMPLE_MS', positiveInt.default(10_000)),
    /** How long the sampled bytes and objects in storage are reused before PostgreSQL is asked again. */
    storedUsageSampleMs: setting('STORED_USAGE_SAMPLE_MS', positiveInt.default(60_000)),
    /** Where spans go: tracing is on when an endpoint is set (the OpenTelemetry SDK's own variables). */
    traces: {
      otlpEndpoint: setting('OTEL_EXPORTER_OTLP_ENDPOINT', z.url().optional()),
      otlpTracesEndpoint: setting('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', z.url().optional()),
      /** `console` prints finished spans to stdout instead (local use); `none` turns tracing off. */
      exporter: setting('OTEL_TRACES_EXPORTER', z.enum(['otlp', 'console', 'none']).optional()),
    },
    serviceName: setting('OTEL_SERVICE_NAME', z.string().optional()),
  },

  // Provenance: Content Credentials (C2PA) on every output (docs/provenance.md). The signing key is not among these:
  // only the processes that sign read it (SIGNING_KEY_SETTINGS).
  provenance: {
    /** Off: outputs are stored unsigned and production starts without a chain. */
    enabled: setting('PROVENANCE_ENABLED', bool.default(true)),
    /** The signing certificate, then the certificates that issued it, PEM: the text, or a file. Public, in every manifest. */
    certChain: setting('PROVENANCE_CERT_CHAIN', z.string().optional()),
    certChainFile: setting('PROVENANCE_CERT_CHAIN_FILE', z.string().optional()),
    /**
     * The CA certificates whose signatures count as this deployment's (the verify endpoint's `signedByThisService`),
     * PEM: the text, or a file. Unset: the chain's certificates after the signing one, or the signing one alone.
     */
    trustAnchors: setting('PROVENANCE_TRUST_ANCHORS', z.string().optional()),
    trustAnchorsFile: setting('PROVENANCE_TRUST_ANCHORS_FILE', z.string().optional()),
    /** An RFC 3161 time-stamp authority every signature is countersigned by. */
    tsaUrl: setting('PROVENANCE_TSA_URL', z.preprocess((v) => (v === '' ? undefined : v), httpUrl.optional())),
  },

  webhooks: {
    /** Allow receivers on private and loopback addresses: development and tests only (refused in production). */
    allowPrivate: setting('WEBHOOK_ALLOW_PRIVATE', bool.default(false)),
    /** Delays in seconds between delivery attempts (Standard Webhooks schedule), comma-separated. */
    retryScheduleSeconds: setting(
      'WEBHOOK_RETRY_SCHEDULE',
      z
        .string()
        .default('0,5,300,1800,7200,18000,36000,50400,72000,86400')
        .transform((raw, ctx) => {
          const schedule = raw.split(',').map((s) => Number(s.trim()));
          if (schedule.some((n) => !Number.isFinite(n) || n < 0)) {
            ctx.addIssue({ code: 'custom', message: 'must be comma-separated non-negative seconds' });
            return z.NEVER;
          }
          return schedule;
        }),
    ),
    timeoutMs: setting('WEBHOOK_TIMEOUT_MS', positiveInt.default(15_000)),
    /** How long after a secret rotation deliveries are also signed with the previous secret. */
    secretRotationWindowSeconds: setting('WEBHOOK_SECRET_ROTATION_WINDOW_SECONDS', z.coerce.number().int().min(0).default(24 * 60 * 60)),
    /** At most this many bytes of a receiver's response body are read. */
    maxResponseBytes: setting('WEBHOOK_MAX_RESPONSE_BYTES', z.coerce.number().int().min(0).default(4096)),
    /** Upper bound of a serialized webhook payload; large `input` fields are truncated to fit. */
    maxPayloadBytes: setting('WEBHOOK_MAX_PAYLOAD_BYTES', z.coerce.number().int().min(2048).default(20 * 1024)),
    /** Minimum time between two `job.progress` webhooks of one job. */
    progressIntervalSeconds: setting('WEBHOOK_PROGRESS_INTERVAL_SECONDS', z.coerce.number().int().min(1).default(5)),
  },

  // Delivery of outputs to an account's own bucket
  outputDelivery: {
    /** How long after a job's completion its delivery is retried before it is given up as failed. */
    retrySeconds: setting('OUTPUT_DELIVERY_RETRY_SECONDS', z.coerce.number().int().min(1).default(24 * 60 * 60)),
    /** The wait before the second attempt; it doubles after each failed attempt up to the maximum. */
    firstBackoffSeconds: setting('OUTPUT_DELIVERY_FIRST_BACKOFF_SECONDS', positive.default(5)),
    /** The longest wait between two attempts (never below the first). */
    maxBackoffSeconds: setting('OUTPUT_DELIVERY_MAX_BACKOFF_SECONDS', positive.default(10 * 60)),
    /** Time one attempt (every output and the manifest) may take before it counts as failed and is tried again. */
    attemptTimeoutSeconds: setting('OUTPUT_DELIVERY_ATTEMPT_TIMEOUT_SECONDS', z.coerce.number().int().min(10).default(30 * 60)),
    /** A request to the customer's bucket that sends and receives nothing for this long fails its attempt. */
    requestTimeoutSeconds: setting('OUTPUT_DELIVERY_REQUEST_TIMEOUT_SECONDS', positive.default(30)),
    /** Attempts of one account's deliveries a worker process runs at once; more wait their turn. */
    maxPerAccount: setting('OUTPUT_DELIVERY_MAX_PER_ACCOUNT', positiveInt.default(4)),
  },
};

/**
 * The signing key of Content Credentials, read only by the processes that sign outputs (the provider workers, through
 * loadSigningKey): never part of a process's Config, so the API and the workflow worker neither read nor hold it.
 */
export const SIGNING_KEY_SETTINGS = {
  /** The signing certificate's private key, PEM (ECDSA P-256 for ES256, or Ed25519): the text, or a file. */
  privateKey: setting('PROVENANCE_PRIVATE_KEY', z.string().optional()),
  privateKeyFile: setting('PROVENANCE_PRIVATE_KEY_FILE', z.string().optional()),
};

/** The settings as read from the environment, before resolveConfig works out the fields that depend on several. */
export type Settings = SettingValues<typeof SETTINGS>;

/** The configuration of a process: the settings, with the fields that depend on several of them worked out. */
export type Config = ReturnType<typeof resolveConfig>;

export interface ProvenanceConfig {
  /** False: outputs are stored as generated (PROVENANCE_ENABLED=false). */
  enabled: boolean;
  /** The signer's certificate chain; undefined when provenance is off, or outside production when none is configured. */
  certificateChainPem?: string;
  /** The RFC 3161 time-stamp authority signatures are countersigned by. */
  timestampAuthorityUrl?: string;
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

function provenanceConfig(p: Settings['provenance'], env: Settings['env']): ProvenanceConfig {
  if (!p.enabled) return { enabled: false };
  const certificateChainPem = pemSetting('PROVENANCE_CERT_CHAIN', p.certChain, p.certChainFile);
  if (certificateChainPem === undefined) {
    if (env === 'production') {
      throw new ConfigError(
        'Refusing to start in production: set PROVENANCE_CERT_CHAIN_FILE (the certificates outputs are signed with; the provider workers also ' +
          'take PROVENANCE_PRIVATE_KEY_FILE), or turn provenance off with PROVENANCE_ENABLED=false (docs/provenance.md)',
      );
    }
    return { enabled: true };
  }
  let chain: X509Certificate[];
  try {
    chain = parseCertificates(certificateChainPem);
  } catch (err) {
    throw new ConfigError(`Invalid environment: PROVENANCE_CERT_CHAIN: ${err instanceof SignerConfigError ? err.message : `a certificate cannot be read (${(err as Error).message})`}`);
  }
  const anchors = pemSetting('PROVENANCE_TRUST_ANCHORS', p.trustAnchors, p.trustAnchorsFile);
  const trustAnchorsPem = anchors ?? (chain.length > 1 ? chain.slice(1) : chain).map((cert) => cert.toString()).join('');
  return { enabled: true, certificateChainPem, ...(p.tsaUrl ? { timestampAuthorityUrl: p.tsaUrl } : {}), trustAnchorsPem };
}

/**
 * The key and chain outputs are signed with, for a process that signs them (a provider worker): the key from
 * PROVENANCE_PRIVATE_KEY(_FILE) in `source`, checked against the configured chain. Undefined when provenance is off, or
 * outside production when neither a chain nor a key is configured; a key without a chain, a chain without a key, or
 * a key that does not belong to the chain stop the start naming the variables.
 */
export function loadSigningKey(config: Pick<Config, 'provenance'>, source: NodeJS.ProcessEnv = process.env): SigningKeySettings | undefined {
  const { values, problems } = readSettings(SIGNING_KEY_SETTINGS, source);
  if (problems.length > 0) throw new ConfigError(`Invalid environment: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  const { enabled, certificateChainPem, timestampAuthorityUrl } = config.provenance;
  if (!enabled) return undefined;
  const privateKeyPem = pemSetting('PROVENANCE_PRIVATE_KEY', values.privateKey, values.privateKeyFile);
  if (certificateChainPem === undefined && privateKeyPem === undefined) return undefined;
  if (certificateChainPem === undefined || privateKeyPem === undefined) {
    throw new ConfigError('Invalid environment: PROVENANCE_CERT_CHAIN(_FILE) and PROVENANCE_PRIVATE_KEY(_FILE) go together in a process that signs outputs');
  }
  const signing: SigningKeySettings = { certificateChainPem, privateKeyPem, ...(timestampAuthorityUrl ? { timestampAuthorityUrl } : {}) };
  try {
    readSigningKey(signing);
  } catch (err) {
    if (!(err instanceof SignerConfigError)) throw err;
    throw new ConfigError(`Invalid environment: PROVENANCE_CERT_CHAIN / PROVENANCE_PRIVATE_KEY: ${err.message}`);
  }
  return signing;
}

/** The variables that hold the signing key. */
export const SIGNING_KEY_VARIABLES: readonly string[] = listSettings(SIGNING_KEY_SETTINGS).map(({ setting: s }) => s.variable);

/**
 * Removes the signing key's variables from `env` (a process's own environment, at its start), so nothing the process
 * runs later, a library or a child process, can read them; returns the ones that were set. A process that does not
 * sign calls it because it never needs them; one that signs, once it has read the key.
 */
export function dropSigningKeyVariables(env: NodeJS.ProcessEnv = process.env): string[] {
  const dropped = SIGNING_KEY_VARIABLES.filter((variable) => env[variable] !== undefined);
  for (const variable of dropped) delete env[variable];
  return dropped;
}

/** Settings a production deployment must not leave at a value anyone can read in this repository or MinIO's docs. */
function productionProblems(s: Settings): string[] {
  const problems: string[] = [];
  if (s.jobs.cursorSecret === DEV_CURSOR_SECRET) problems.push('set JOBS_CURSOR_SECRET (it signs list cursors) to a long random string');
  if ([DEV_MINIO_PASSWORD, MINIO_FACTORY_PASSWORD].includes(s.minio.secretKey ?? s.minio.rootPassword)) {
    problems.push('set MINIO_ROOT_PASSWORD (or MINIO_ACCESS_KEY and MINIO_SECRET_KEY): the built-in and MinIO default passwords are public');
  }
  if (s.destinations.secretKey === undefined) problems.push('set DESTINATION_SECRET_KEY (it encrypts destination secrets) to 32 random bytes, base64 (openssl rand -base64 32)');
  // Each lets clients point the services at the deployment's own network (webhooks, input files, destinations).
  const privateAddresses = [SETTINGS.webhooks.allowPrivate, SETTINGS.providers.inputFetchAllowPrivate, SETTINGS.destinations.allowPrivate];
  const allowed = [s.webhooks.allowPrivate, s.providers.inputFetchAllowPrivate, s.destinations.allowPrivate];
  privateAddresses.forEach(({ variable }, i) => {
    if (allowed[i] === true) problems.push(`unset ${variable} (private addresses are for development and tests; in production it would let a client's URL reach your own network)`);
  });
  return problems;
}

/** COG_ALLOWED_NETWORKS, or by default the local networks outside production. */
function cogAllowedNetworks(s: Settings): AllowedNetworks {
  return { setting: SETTINGS.cog.allowedNetworks.variable, entries: s.cog.allowedNetworks ?? (s.env === 'production' ? [] : LOCAL_NETWORKS) };
}

/** Where spans go; `off` unless an OTLP endpoint or the console exporter is configured. */
function tracesExporter(t: Settings['observability']['traces']): 'off' | 'otlp' | 'console' {
  if (t.exporter === 'none') return 'off';
  if (t.exporter === 'console') return 'console';
  const endpoint = t.otlpTracesEndpoint ?? t.otlpEndpoint;
  return endpoint !== undefined || t.exporter === 'otlp' ? 'otlp' : 'off';
}

/** The fields worked out from several settings (defaults that follow another setting or NODE_ENV); the rest as read. */
function resolveConfig(s: Settings) {
  const apiOrigin = `http://${s.api.host}:${s.api.port}`;
  const { deployment, ...temporal } = s.temporal;
  const { rootUser, rootPassword, ...minio } = s.minio;
  const minioEndpoint = (minio.endpoint ?? `http://127.0.0.1:${minio.port}`).replace(/\/$/, '');
  return {
    ...s,
    api: { ...s.api, publicBaseUrl: (s.api.publicBaseUrl ?? apiOrigin).replace(/\/$/, '') },
    console: { ...s.console, devApiKey: s.env === 'production' ? undefined : s.console.devApiKey },
    database: {
      url: s.database.url ?? `postgresql://genmedia:genmedia@127.0.0.1:${s.database.port}/genmedia`,
      port: s.database.port,
      /** Whether the project's own cluster is used (no DATABASE_URL). */
      managed: s.database.url === undefined,
    },
    temporal: {
      ...temporal,
      address: temporal.address ?? `127.0.0.1:${temporal.port}`,
      uiUrl: (temporal.uiUrl ?? `http://127.0.0.1:${temporal.uiPort}`).replace(/\/+$/, ''),
      /** The worker deployment of the workflow worker; absent: unversioned. */
      ...(deployment.versioning ? { deployment: { deploymentName: deployment.deploymentName, ...(deployment.buildId ? { buildId: deployment.buildId } : {}) } } : {}),
    },
    minio: {
      ...minio,
      endpoint: minioEndpoint,
      /** Where clients reach MinIO: the host presigned URLs are signed for. */
      publicEndpoint: (minio.publicEndpoint ?? minioEndpoint).replace(/\/$/, ''),
      consoleUrl: `http://127.0.0.1:${minio.consolePort}`,
      accessKey: minio.accessKey ?? rootUser,
      secretKey: minio.secretKey ?? rootPassword,
    },
    providers: { ...s.providers, failureInjection: s.providers.failureInjection ?? s.env !== 'production' },
    cog: {
      ...s.cog,
      callbackBaseUrl: (s.cog.callbackBaseUrl ?? s.upstreams.callbackBaseUrl ?? s.api.publicBaseUrl ?? apiOrigin).replace(/\/+$/, ''),
      allowedNetworks: cogAllowedNetworks(s),
    },
    destinations: {
      ...s.destinations,
      allowPrivate: s.destinations.allowPrivate ?? (s.env === 'development' || s.providers.inputFetchAllowPrivate),
      /** Plain `http:` endpoints, on private addresses only, outside production; production takes `https:` alone. */
      allowPlainHttp: s.env !== 'production',
    },
    observability: { ...s.observability, traces: tracesExporter(s.observability.traces) },
    provenance: provenanceConfig(s.provenance, s.env),
    outputDelivery: { ...s.outputDelivery, maxBackoffSeconds: Math.max(s.outputDelivery.maxBackoffSeconds, s.outputDelivery.firstBackoffSeconds) },
  };
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const { values, problems } = readSettings(SETTINGS, source);
  if (problems.length > 0) {
    throw new ConfigError(`Invalid environment: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  }
  const unsafe = values.env === 'production' ? productionProblems(values) : [];
  if (unsafe.length > 0) throw new ConfigError(`Refusing to start in production: ${unsafe.join('; ')}`);
  return resolveConfig(values);
}
