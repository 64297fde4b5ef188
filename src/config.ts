import type { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { listSettings, readSettings, setting, type SettingValues } from './lib/envSettings';
import { parseCertificates, readSigningKey, SignerConfigError, type SigningKeySettings } from './lib/signingKeys';
import { findRepoRoot } from './lib/repoRoot';
import { DEFAULT_PROVIDER_TASK_QUEUE_PREFIX } from './shared/temporal';
import { DEFAULT_JOBS_TASK_QUEUE } from './contracts/workflows/define';
import { LOCAL_NETWORKS, parseAllowedNetworks, type AllowedNetworks } from './net/allowedNetworks';
import { mergeTuning, parseTuning, pickTuning, readTuningFile, TuningError } from './lib/tuning';
import { API_TUNING } from './api/tuning';
import { WORKERS_TUNING } from './workers/tuning';
import { UPLOADS_TUNING } from './uploads/tuning';
import { UPSTREAMS_TUNING } from './providers/upstreams/tuning';
import { COG_TUNING } from './providers/cog/tuning';
import { JOBS_TUNING } from './jobs/tuning';
import { DIALECTS_TUNING } from './dialects/tuning';
import { BATCHES_TUNING } from './batches/tuning';
import { OBSERVABILITY_TUNING } from './observability/tuning';
import { WEBHOOKS_TUNING } from './webhooks/tuning';
import { DESTINATIONS_TUNING } from './outputs/destinations/tuning';
import { OUTPUTS_TUNING } from './outputs/tuning';
import { OUTPUT_DELIVERY_TUNING } from './outputs/delivery/tuning';
import { LOCAL_PROVIDER_TUNING } from './providers/local/tuning';

/** Repository root, from the sources or from the build in dist/: every default path is relative to it. */
export const REPO_ROOT = findRepoRoot(path.resolve(__dirname, '..'));

/**
 * Where the services of `npm run dev` are at their default ports (scripts/lib/devPorts.js, which hands the processes
 * it starts the addresses of the ports it was given).
 */
const DEV_DATABASE_URL = 'postgresql://genmedia:genmedia@127.0.0.1:54329/genmedia';
const DEV_TEMPORAL_ADDRESS = '127.0.0.1:7233';
const DEV_TEMPORAL_UI_URL = 'http://127.0.0.1:8233';
const DEV_MINIO_ENDPOINT = 'http://127.0.0.1:9000';

/** The worker deployment the workflow worker joins, after TEMPORAL_TASK_QUEUE_PREFIX. */
const DEPLOYMENT_NAME = 'genmedia';

/** Where a worker serves its metrics when METRICS_PORT is unset: the API serves them on PORT then. */
const DEFAULT_WORKER_METRICS_PORT = 9464;

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
const httpUrl = z.url({ protocol: /^https?$/ });

/** `id=value,id2=value2` into a map; values are positive numbers. */
function providerMap() {
  return z
    .string()
    .default('')
    .transform((raw, ctx) => {
      const map: Record<string, number> = {};
      for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
        const [id, value] = part.split('=').map((s) => s.trim());
        const n = Number(value);
        if (!id || !Number.isFinite(n) || n <= 0) {
          ctx.addIssue({ code: 'custom', message: `must look like "providerId=0.5,other=..." (got "${part}")` });
          return z.NEVER;
        }
        map[id] = n;
      }
      return map;
    });
}

/** Jobs one provider worker runs at once, where PROVIDER_CONCURRENCY gives no number. */
const DEFAULT_PROVIDER_CONCURRENCY = 4;

/**
 * Jobs one provider worker runs at once: `4` for every provider, `4,lumina=2` a default and overrides, `pixelforge=4`
 * overrides alone (the rest at DEFAULT_PROVIDER_CONCURRENCY).
 */
const providerConcurrency = z
  .string()
  .default('')
  .transform((raw, ctx) => {
    const concurrency = { default: DEFAULT_PROVIDER_CONCURRENCY, byProvider: {} as Record<string, number> };
    let defaults = 0;
    for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
      const [id, value] = part.includes('=') ? part.split('=').map((s) => s.trim()) : [undefined, part];
      const n = Number(value);
      if (id === '' || !/^\d+$/.test(value ?? '') || n <= 0 || (id === undefined && ++defaults > 1)) {
        ctx.addIssue({ code: 'custom', message: `must look like "4", "4,providerId=2" or "providerId=4,other=..." (got "${part}")` });
        return z.NEVER;
      }
      if (id === undefined) concurrency.default = n;
      else concurrency.byProvider[id] = n;
    }
    return concurrency;
  });

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
 * Every setting the services read from the environment, once: its variable, its schema with the default, its
 * description (docs/configuration.md is written from these: `npm run docs:config`), and, by its place here, the field
 * of the configuration it fills. A few fields are then worked out from several settings
 * (resolveConfig); each is said there.
 */
export const SETTINGS = {
  env: setting('NODE_ENV', z.enum(['development', 'test', 'production']).default('development'), '`development`, `test` or `production`'),
  logLevel: setting(
    'LOG_LEVEL',
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    'pino level: `fatal`, `error`, `warn`, `info`, `debug`, `trace`, `silent`',
  ),
  testTuning: setting(
    'GENMEDIA_TEST_TUNING',
    z.string().min(1).optional(),
    "tests only: a JSON file of [tuning](#tuning) values a test gives the processes it spawns (`npm test` gives every process one, the benchmarks and the chaos runs theirs; `npm run dev` passes it on); with `NODE_ENV=production` the API and workers refuse to start while it is set",
  ),

  api: {
    host: setting('API_HOST', z.string().default('127.0.0.1'), 'interface the API listens on'),
    port: setting('PORT', port.default(3000), 'API port'),
    publicBaseUrl: setting(
      'PUBLIC_BASE_URL',
      z.string().url().optional(),
      'base URL used in `fileUrl`s, `Location` headers and the OpenAPI `servers` entry',
      { default: '`http://<API_HOST>:<PORT>`' },
    ),
    keepAliveTimeoutMs: setting(
      'HTTP_KEEP_ALIVE_TIMEOUT_MS',
      positiveInt.default(65_000),
      'how long the API keeps an idle connection open; keep it above the idle timeout of a load balancer in front (60 s on most), so the balancer never reuses a connection the API has closed (header timeout: this + 1 s)',
    ),
    corsOrigins: setting(
      'CORS_ORIGINS',
      z
        .string()
        .default('')
        .transform((raw) => raw.split(',').map((origin) => origin.trim().replace(/\/+$/, '')).filter(Boolean)),
      'origins whose browser pages may call the API (comma-separated); CORS is off when empty',
      { default: 'empty' },
    ),
  },

  database: {
    url: setting(
      'DATABASE_URL',
      z.string().optional(),
      'set it to use another PostgreSQL (then none is started)',
      { default: "the dev stack's, `postgresql://genmedia:genmedia@127.0.0.1:54329/genmedia` (its port: `PG_PORT`)" },
    ),
  },

  temporal: {
    address: setting(
      'TEMPORAL_ADDRESS',
      z.string().optional(),
      'set it to use another Temporal (then none is started)',
      { default: "the dev stack's, `127.0.0.1:7233` (its port: `TEMPORAL_PORT`)" },
    ),
    uiUrl: setting(
      'TEMPORAL_UI_URL',
      httpUrl.optional(),
      'where operators open the Temporal Web UI: the workflow pages `genmedia admin jobs open` prints',
      { default: "the dev stack's, `http://127.0.0.1:8233` (its port: `TEMPORAL_UI_PORT`)" },
    ),
    namespace: setting('TEMPORAL_NAMESPACE', z.string().default('default'), 'Temporal namespace'),
    taskQueuePrefix: setting(
      'TEMPORAL_TASK_QUEUE_PREFIX',
      // It starts the worker deployment's name too, which Temporal takes without a dot.
      z.string().regex(/^[A-Za-z0-9_-]*$/, 'must be letters, digits, - and _ (it starts the worker deployment\'s name, which takes no dot)').default(''),
      "prefix of the deployment's names in Temporal, so that stacks sharing a namespace stay apart (tests give each stack its own): the workflow worker's task queue `<prefix>jobs` (job, upload and webhook workflows), the provider task queues `<prefix>provider.<providerId>` and the workflow worker's worker deployment `<prefix>genmedia`",
    ),
    // Temporal Cloud, or a server of your own behind TLS (src/temporal/connectionOptions.ts).
    credentials: {
      apiKey: setting(
        'TEMPORAL_API_KEY',
        z.string().min(1).optional(),
        'an API key the processes present to Temporal (Temporal Cloud); TLS is then on',
      ),
      tlsCert: setting(
        'TEMPORAL_TLS_CERT',
        z.string().min(1).optional(),
        "the path of the client certificate (PEM) for mTLS to Temporal (Temporal Cloud's or your own CA's), with `TEMPORAL_TLS_KEY`; TLS is then on",
      ),
      tlsKey: setting('TEMPORAL_TLS_KEY', z.string().min(1).optional(), 'the path of the private key (PEM) of `TEMPORAL_TLS_CERT`'),
      tlsCa: setting(
        'TEMPORAL_TLS_CA',
        z.string().min(1).optional(),
        "the path of the CA certificate (PEM) a self-hosted Temporal's certificate is checked against; TLS is then on",
        { default: "the system's trusted CAs" },
      ),
    },
    deployment: {
      buildId: setting(
        'WORKER_BUILD_ID',
        z.string().min(1).optional(),
        "the workflow worker's build id within its deployment",
        { default: 'the package version and a digest of the workflow bundle' },
      ),
    },
  },

  minio: {
    endpoint: setting(
      'MINIO_ENDPOINT',
      z.string().url().optional(),
      'set it to use another S3/MinIO (then none is started)',
      { default: "the dev stack's, `http://127.0.0.1:9000` (its port: `MINIO_PORT`)" },
    ),
    publicEndpoint: setting(
      'MINIO_PUBLIC_ENDPOINT',
      z.string().url().optional(),
      'where clients reach MinIO: the host presigned upload and download URLs are signed for (a proxy or public name), while the services keep using `MINIO_ENDPOINT`',
      { default: '`MINIO_ENDPOINT`' },
    ),
    accessKey: setting(
      'MINIO_ACCESS_KEY',
      z.string().min(3).default(DEV_MINIO_USER),
      "access key of the application's own MinIO user, limited to its buckets (compose: `genmedia-app`); the default is the root user `npm run dev` starts its MinIO with",
    ),
    secretKey: setting(
      'MINIO_SECRET_KEY',
      z.string().min(8).default(DEV_MINIO_PASSWORD),
      "secret key of the application's MinIO user; with `NODE_ENV=production` the API and workers refuse to start on the built-in or MinIO's default (`minioadmin`) secret",
      { default: 'a dev value (the root password of `npm run dev`\'s MinIO)' },
    ),
    region: setting('MINIO_REGION', z.string().default('us-east-1'), 'region used for signing'),
    uploadsBucket: setting(
      'UPLOADS_BUCKET',
      z.string().default('genmedia-uploads'),
      'bucket of uploaded files, created at API/worker start when missing',
    ),
    outputsBucket: setting(
      'OUTPUTS_BUCKET',
      z.string().default('genmedia-outputs'),
      'bucket of job outputs, created at API/worker start when missing',
    ),
  },

  providers: {
    inputFetchAllowPrivate: setting(
      'INPUT_FETCH_ALLOW_PRIVATE',
      bool.default(false),
      'fetch input files (`image_url`, ...) and upstream outputs from private and loopback addresses too, and take account destinations (customers\' buckets) there, which development takes anyway (a MinIO on the same machine or network); development and tests only, refused in production (link-local and cloud metadata addresses are always refused)',
    ),
    concurrency: setting(
      'PROVIDER_CONCURRENCY',
      providerConcurrency,
      'jobs one provider worker runs at once: a number for every provider (`8`), per provider (`pixelforge=4,lumina=2`, the others at 4), or both (`8,lumina=2`)',
      { default: '`4` (every provider)' },
    ),
    rateLimitsPerSecond: setting(
      'PROVIDER_RATE_LIMITS',
      providerMap(),
      'per-provider jobs started per second across all its workers, `lumina=0.5`',
      { default: 'empty' },
    ),
  },

  // Real upstreams (fal, Replicate, Runway, Google, OpenAI); their credentials are read by src/providers/upstreams.
  upstreams: {
    callbackBaseUrl: setting(
      'UPSTREAM_CALLBACK_BASE_URL',
      httpUrl.optional().transform((url) => url?.replace(/\/+$/, '')),
      'public origin fal and Replicate call back to (`https://genmedia.example.com`; they post to `…/v1/providers/<id>/callback`); unset: status polling only',
    ),
  },

  // Self-hosted Cog servers (docs/self-hosted.md)
  cog: {
    callbackBaseUrl: setting(
      'COG_CALLBACK_BASE_URL',
      httpUrl.optional(),
      'origin self-hosted Cog servers post their webhooks to (`…/v1/providers/cog/callback`)',
      { default: '`UPSTREAM_CALLBACK_BASE_URL`, else `PUBLIC_BASE_URL`' },
    ),
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
      'the only networks (CIDR ranges, addresses, host names) Cog servers are reached on, at import and on every request; link-local and metadata addresses never ([self-hosted.md](self-hosted.md#networks-a-cog-server-may-be-on))',
      { default: 'loopback and private ranges; empty in production' },
    ),
  },

  // Account destinations (customers' own buckets, docs/outputs.md)
  destinations: {
    secretKey: setting(
      'DESTINATION_SECRET_KEY',
      secretKey32,
      "32 random bytes, base64 (`openssl rand -base64 32`) or 64 hex digits, that encrypt customers' destination secrets at rest (AES-256-GCM); with `NODE_ENV=production` the API and workers refuse to start without it. Losing or changing it makes every stored secret unreadable: delivery to those buckets fails until each account sets its destination again ([outputs.md](outputs.md#your-own-bucket-setup))",
      { default: 'unset; `npm run dev` generates one into `.data/destination-secret-key`, `npm test` one per run' },
    ),
  },

  jobs: {
    cursorSecret: setting(
      'JOBS_CURSOR_SECRET',
      z.string().min(16).default(DEV_CURSOR_SECRET),
      "HMAC key of the job listing cursor and (derived) of each job's `eventsUrl` token (at least 16 characters); with `NODE_ENV=production` the API and workers refuse to start without a secret of your own",
      { default: 'a dev value' },
    ),
  },

  // Observability (docs/observability.md).
  observability: {
    metricsPort: setting(
      'METRICS_PORT',
      port.optional(),
      "port of the process's `/metrics`, read by whichever process it is: a worker serves them on it (`9464` when unset; `0`: any free port, printed at start; `npm run dev` gives each worker its own); the API, when it is set, serves `GET /metrics` on this port (`0`: any free port) and no longer on `PORT`, which compose does, as a reverse proxy in front of `PORT` would otherwise let every client scrape ([observability.md](observability.md))",
      { default: 'a worker: `9464`; the API: none, served on `PORT`' },
    ),
    metricsHost: setting('METRICS_HOST', z.string().default('127.0.0.1'), 'interface of the `/metrics` port (of a worker, or of the API when `METRICS_PORT` is set)'),
    metricsBearerToken: setting(
      'METRICS_BEARER_TOKEN',
      z.string().min(16).optional(),
      "when set (at least 16 characters), `/metrics` of the API and workers answers only `Authorization: Bearer <token>`; unset, loopback and private addresses may scrape, except on the API's client port in production",
    ),
    /** Where spans go: tracing is on when an endpoint is set (the OpenTelemetry SDK's own variables). */
    traces: {
      otlpEndpoint: setting(
        'OTEL_EXPORTER_OTLP_ENDPOINT',
        z.url().optional(),
        "where traces are sent over OTLP (the OpenTelemetry SDK's own variable); tracing is off until this or the next is set",
      ),
      otlpTracesEndpoint: setting(
        'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        z.url().optional(),
        "the OTLP endpoint of traces alone, before `OTEL_EXPORTER_OTLP_ENDPOINT` (the OpenTelemetry SDK's own variable)",
      ),
      exporter: setting(
        'OTEL_TRACES_EXPORTER',
        z.enum(['otlp', 'console', 'none']).optional(),
        '`otlp`, `console` (finished spans printed to the logs) or `none` (tracing off)',
      ),
    },
    serviceName: setting('OTEL_SERVICE_NAME', z.string().optional(), 'the service name on spans instead of `genmedia-api` / `genmedia-worker`'),
  },

  // Provenance: Content Credentials (C2PA) on every output (docs/provenance.md). The signing key is not among these:
  // only the processes that sign read it (SIGNING_KEY_SETTINGS).
  provenance: {
    enabled: setting(
      'PROVENANCE_ENABLED',
      bool.default(true),
      'sign every output with Content Credentials (C2PA) before it is stored ([provenance.md](provenance.md)); `false` stores them as generated and lets production start without a chain',
    ),
    certChain: setting(
      'PROVENANCE_CERT_CHAIN',
      z.string().optional(),
      "the signing certificate and its issuers, PEM: the text itself (a value holding `-----BEGIN`; `\\n` may stand for line breaks) or the path of a file holding it; production refuses to start without it unless `PROVENANCE_ENABLED=false`; unset elsewhere, outputs are stored unsigned. Public: it is in every manifest",
      { default: 'unset (`npm run dev`: its development chain in `.data/provenance/`)' },
    ),
    trustAnchors: setting(
      'PROVENANCE_TRUST_ANCHORS',
      z.string().optional(),
      "the CA certificates whose signatures count as this deployment's (`signedByThisService` of the provenance endpoints), PEM: the text or the path of a file holding it",
      { default: "the chain's certificates after the signing one" },
    ),
    tsaUrl: setting(
      'PROVENANCE_TSA_URL',
      z.preprocess((v) => (v === '' ? undefined : v), httpUrl.optional()),
      'an RFC 3161 time-stamp authority that countersigns every signature',
    ),
  },

  webhooks: {
    allowPrivate: setting(
      'WEBHOOK_ALLOW_PRIVATE',
      bool.default(false),
      'allow webhook URLs that resolve to private addresses (local testing); refused in production; link-local and metadata addresses never',
    ),
  },
};

/**
 * The signing key of Content Credentials, read only by the processes that sign outputs (the provider workers, through
 * loadSigningKey): never part of a process's Config, so the API and the workflow worker neither read nor hold it.
 */
export const SIGNING_KEY_SETTINGS = {
  privateKey: setting(
    'PROVENANCE_PRIVATE_KEY',
    z.string().optional(),
    'the signing key, PEM: the text or the path of a file holding it; ECDSA P-256 (ES256) or Ed25519, the algorithm following the key; read by the provider workers only, which refuse to start with a chain and no key; give it to no other process',
    { default: 'unset (`npm run dev`: its development key)' },
  ),
};

/**
 * Every feature's tuning (src/lib/tuning.ts), by the branch of the configuration it fills: not read from the
 * environment; tests override it (loadConfig's `tuning`, GENMEDIA_TEST_TUNING for the processes they spawn).
 */
export const TUNING = z
  .strictObject({
    api: API_TUNING,
    temporal: WORKERS_TUNING,
    uploads: UPLOADS_TUNING,
    upstreams: UPSTREAMS_TUNING,
    cog: COG_TUNING,
    jobs: JOBS_TUNING,
    dialects: DIALECTS_TUNING,
    batches: BATCHES_TUNING,
    observability: OBSERVABILITY_TUNING,
    webhooks: WEBHOOKS_TUNING,
    destinations: DESTINATIONS_TUNING,
    outputs: OUTPUTS_TUNING,
    outputDelivery: OUTPUT_DELIVERY_TUNING,
    providers: LOCAL_PROVIDER_TUNING,
  })
  .prefault({});

/** The tuning values of a configuration. */
export type Tuning = z.output<typeof TUNING>;
/** Tuning values a test changes; the others keep their defaults. */
export type TuningOverride = NonNullable<z.input<typeof TUNING>>;

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

/** What marks a PEM setting's value as the PEM text itself; any other value is the path of a file holding it. */
const PEM_TEXT = '-----BEGIN';

/**
 * A PEM setting: its text (`\n` may stand for line breaks), or the content of the file its value names. A `secret`
 * setting's value is not repeated in the error: it may be a key that lost its PEM header.
 */
function pemSetting(variable: string, value: string | undefined, { secret = false } = {}): string | undefined {
  if (!value) return undefined;
  if (value.includes(PEM_TEXT)) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch (err) {
    const file = secret ? 'the file it names' : value;
    throw new ConfigError(
      `Invalid environment: ${variable}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); give the PEM text (it holds ${PEM_TEXT}) or the path of a file holding it`,
    );
  }
}

function provenanceConfig(p: Settings['provenance'], env: Settings['env']): ProvenanceConfig {
  if (!p.enabled) return { enabled: false };
  const certificateChainPem = pemSetting(SETTINGS.provenance.certChain.variable, p.certChain);
  if (certificateChainPem === undefined) {
    if (env === 'production') {
      throw new ConfigError(
        'Refusing to start in production: set PROVENANCE_CERT_CHAIN (the certificates outputs are signed with, PEM or a file of it; the provider ' +
          'workers also take PROVENANCE_PRIVATE_KEY), or turn provenance off with PROVENANCE_ENABLED=false (docs/provenance.md)',
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
  const anchors = pemSetting(SETTINGS.provenance.trustAnchors.variable, p.trustAnchors);
  const trustAnchorsPem = anchors ?? (chain.length > 1 ? chain.slice(1) : chain).map((cert) => cert.toString()).join('');
  return { enabled: true, certificateChainPem, ...(p.tsaUrl ? { timestampAuthorityUrl: p.tsaUrl } : {}), trustAnchorsPem };
}

/**
 * The key and chain outputs are signed with, for a process that signs them (a provider worker): the key from
 * PROVENANCE_PRIVATE_KEY in `source` (its PEM or a file of it), checked against the configured chain. Undefined when provenance is off, or
 * outside production when neither a chain nor a key is configured; a key without a chain, a chain without a key, or
 * a key that does not belong to the chain stop the start naming the variables.
 */
export function loadSigningKey(config: Pick<Config, 'provenance'>, source: NodeJS.ProcessEnv = process.env): SigningKeySettings | undefined {
  const { values, problems } = readSettings(SIGNING_KEY_SETTINGS, source);
  if (problems.length > 0) throw new ConfigError(`Invalid environment: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  const { enabled, certificateChainPem, timestampAuthorityUrl } = config.provenance;
  if (!enabled) return undefined;
  const privateKeyPem = pemSetting(SIGNING_KEY_SETTINGS.privateKey.variable, values.privateKey, { secret: true });
  if (certificateChainPem === undefined && privateKeyPem === undefined) return undefined;
  if (certificateChainPem === undefined || privateKeyPem === undefined) {
    throw new ConfigError('Invalid environment: PROVENANCE_CERT_CHAIN and PROVENANCE_PRIVATE_KEY go together in a process that signs outputs');
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
  if ([DEV_MINIO_PASSWORD, MINIO_FACTORY_PASSWORD].includes(s.minio.secretKey)) {
    problems.push('set MINIO_ACCESS_KEY and MINIO_SECRET_KEY (the application\'s MinIO user): the built-in and MinIO default secrets are public');
  }
  if (s.destinations.secretKey === undefined) problems.push('set DESTINATION_SECRET_KEY (it encrypts destination secrets) to 32 random bytes, base64 (openssl rand -base64 32)');
  if (s.testTuning !== undefined) problems.push(`unset ${SETTINGS.testTuning.variable} (tuning from a file is for tests)`);
  // Each lets clients point the services at the deployment's own network (webhooks, input files, destinations).
  const privateAddresses = [SETTINGS.webhooks.allowPrivate, SETTINGS.providers.inputFetchAllowPrivate];
  const allowed = [s.webhooks.allowPrivate, s.providers.inputFetchAllowPrivate];
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
function resolveConfig(s: Settings, t: Tuning) {
  const apiOrigin = `http://${s.api.host}:${s.api.port}`;
  const { deployment, taskQueuePrefix, ...temporal } = s.temporal;
  const { minio } = s;
  const { metricsPort, ...observability } = s.observability;
  const minioEndpoint = (minio.endpoint ?? DEV_MINIO_ENDPOINT).replace(/\/$/, '');
  return {
    ...s,
    api: { ...s.api, ...t.api, publicBaseUrl: (s.api.publicBaseUrl ?? apiOrigin).replace(/\/$/, '') },
    database: { url: s.database.url ?? DEV_DATABASE_URL },
    temporal: {
      ...temporal,
      ...t.temporal,
      address: temporal.address ?? DEV_TEMPORAL_ADDRESS,
      uiUrl: (temporal.uiUrl ?? DEV_TEMPORAL_UI_URL).replace(/\/+$/, ''),
      taskQueuePrefix,
      /** The task queue of the workflow worker. */
      jobsTaskQueue: `${taskQueuePrefix}${DEFAULT_JOBS_TASK_QUEUE}`,
      /** Provider task queues are `<providerTaskQueuePrefix><providerId>` (providerTaskQueue). */
      providerTaskQueuePrefix: `${taskQueuePrefix}${DEFAULT_PROVIDER_TASK_QUEUE_PREFIX}`,
      /** The worker deployment of the workflow worker; absent: unversioned. */
      ...(t.temporal.workerVersioning
        ? { deployment: { deploymentName: `${taskQueuePrefix}${DEPLOYMENT_NAME}`, ...(deployment.buildId ? { buildId: deployment.buildId } : {}) } }
        : {}),
    },
    minio: {
      ...minio,
      endpoint: minioEndpoint,
      /** Where clients reach MinIO: the host presigned URLs are signed for. */
      publicEndpoint: (minio.publicEndpoint ?? minioEndpoint).replace(/\/$/, ''),
    },
    providers: { ...s.providers, ...t.providers, failureInjection: t.providers.failureInjection && s.env !== 'production' },
    upstreams: { ...s.upstreams, ...t.upstreams },
    uploads: t.uploads,
    jobs: { ...s.jobs, ...t.jobs },
    dialects: t.dialects,
    batches: t.batches,
    webhooks: { ...s.webhooks, ...t.webhooks },
    cog: {
      ...s.cog,
      ...t.cog,
      callbackBaseUrl: (s.cog.callbackBaseUrl ?? s.upstreams.callbackBaseUrl ?? s.api.publicBaseUrl ?? apiOrigin).replace(/\/+$/, ''),
      allowedNetworks: cogAllowedNetworks(s),
    },
    destinations: {
      ...s.destinations,
      ...t.destinations,
      /** Endpoints on private and loopback addresses: in development, and with INPUT_FETCH_ALLOW_PRIVATE (tests). */
      allowPrivate: s.env === 'development' || s.providers.inputFetchAllowPrivate,
      /** Plain `http:` endpoints, on private addresses only, outside production; production takes `https:` alone. */
      allowPlainHttp: s.env !== 'production',
    },
    observability: {
      ...observability,
      ...t.observability,
      /** Where a worker serves its metrics. */
      workerMetricsPort: metricsPort ?? DEFAULT_WORKER_METRICS_PORT,
      /** The API's own metrics port; absent: GET /metrics on PORT. */
      apiMetricsPort: metricsPort,
      traces: tracesExporter(s.observability.traces),
    },
    provenance: provenanceConfig(s.provenance, s.env),
    outputs: t.outputs,
    outputDelivery: { ...t.outputDelivery, maxBackoffSeconds: Math.max(t.outputDelivery.maxBackoffSeconds, t.outputDelivery.firstBackoffSeconds) },
  };
}

export interface LoadConfigOptions {
  /** Tuning values other than the defaults (tests), on top of those of GENMEDIA_TEST_TUNING. */
  tuning?: TuningOverride;
}

/**
 * The tuning of a process: the defaults, the values of GENMEDIA_TEST_TUNING's file on top, then `override`. A test's
 * file is refused in production (productionProblems), so a deployment cannot be tuned by it by mistake.
 */
function loadTuning(s: Settings, override: TuningOverride | undefined): Tuning {
  const file = s.testTuning;
  try {
    const fromFile = file === undefined ? {} : readTuningFile(file);
    return parseTuning(TUNING, mergeTuning(fromFile, override), file === undefined ? 'test configuration' : `${SETTINGS.testTuning.variable}=${file}`);
  } catch (err) {
    if (err instanceof TuningError) throw new ConfigError(err.message);
    throw err;
  }
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env, options: LoadConfigOptions = {}): Config {
  const { values, problems } = readSettings(SETTINGS, source);
  if (problems.length > 0) {
    throw new ConfigError(`Invalid environment: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  }
  const unsafe = values.env === 'production' ? productionProblems(values) : [];
  if (unsafe.length > 0) throw new ConfigError(`Refusing to start in production: ${unsafe.join('; ')}`);
  return resolveConfig(values, loadTuning(values, options.tuning));
}

/** The tuning values `config` holds, as an override (what a test hands the processes it spawns). */
export function tuningOf(config: Config): Tuning {
  return pickTuning(TUNING, config) as Tuning;
}
