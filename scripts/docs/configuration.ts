/**
 * Writes docs/configuration.md from the settings' declarations (src/config.ts): every variable with its default and
 * its description, in the order they are declared. `npm run docs:config` runs it; test/unit/config/documented.test.ts
 * fails while the file differs from what this writes, so the page is never edited by hand.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, SETTINGS, SIGNING_KEY_SETTINGS, TUNING } from '../../src/config';
import { listSettings, type Setting } from '../../src/lib/envSettings';

export const CONFIGURATION_DOC = path.join(REPO_ROOT, 'docs', 'configuration.md');

/** A variable the scripts read (not src/config.ts), documented beside the settings: with the file that reads it. */
export interface ScriptSetting {
  variable: string;
  file: string;
  default: string;
  description: string;
}

export const SCRIPT_SETTINGS: readonly ScriptSetting[] = [
  {
    variable: 'TEMPORAL_NAMESPACE_RETENTION',
    file: 'scripts/lib/temporalRetention.js',
    default: '`72h`',
    description:
      "how long Temporal keeps a closed workflow's history (a job's input and steps) before deleting it, in whole hours (`72h`) " +
      'or days (`3d`), at least `24h`; set on the namespace by every Temporal the project starts (`npm run dev`, `npm test`, ' +
      "`npm run cluster`, the workflow tests' dev servers, `docker-compose.yml`), on every start, also on a namespace that " +
      'exists ([security.md](security.md#where-a-jobs-data-lives)). A Temporal given by `TEMPORAL_ADDRESS` is left as it is',
  },
  {
    variable: 'GENMEDIA_DATA_DIR',
    file: 'scripts/lib/paths.js',
    default: '`<repository>/.data` (`npm run cluster`: `.data/cluster`)',
    description:
      'local state of `npm run dev` (PostgreSQL cluster, Temporal db, MinIO data, logs, dev keys and secrets); the processes it starts ' +
      'get it, the seed saves the dev keys there and the `genmedia` CLI finds them there for an API on this machine',
  },
  {
    variable: 'GENMEDIA_COG',
    file: 'scripts/lib/cogExample.js',
    default: 'unset',
    description: '`1`: `npm run dev` runs the example Cog predictor of `examples/cog/` and registers it ([self-hosted.md](self-hosted.md))',
  },
  ...(
    [
      ['PG_PORT', 54329, "the port of the dev stack's PostgreSQL cluster; the processes `npm run dev` starts get `DATABASE_URL` on it"],
      ['TEMPORAL_PORT', 7233, "the gRPC port of the dev stack's Temporal dev server; its processes get `TEMPORAL_ADDRESS` on it"],
      ['TEMPORAL_UI_PORT', 8233, "the port of the dev stack's Temporal Web UI; its processes get `TEMPORAL_UI_URL` on it"],
      ['MINIO_PORT', 9000, "the S3 port of the dev stack's MinIO; its processes get `MINIO_ENDPOINT` on it"],
      ['MINIO_CONSOLE_PORT', 9001, "the port of the dev stack's MinIO console, which `npm run dev` prints"],
      ['CONSOLE_HMR_PORT', 24678, "the port of the web console's hot-reload WebSocket, which `npm run dev` gives its API (`scripts/devApi.js`)"],
    ] as const
  ).map(([variable, port, description]) => ({ variable, file: 'scripts/lib/devPorts.js', default: `\`${port}\``, description })),
  { variable: 'COG_EXAMPLE_PORT', file: 'scripts/lib/cogExample.js', default: '`5055`', description: "the example Cog predictor's port (`GENMEDIA_COG=1`)" },
];

/**
 * The file that declares each branch of the tuning (src/lib/tuning.ts), by the branch of the configuration it fills.
 */
export const TUNING_FILES: Readonly<Record<keyof typeof TUNING.def.innerType.shape, string>> = {
  api: 'src/api/tuning.ts',
  temporal: 'src/workers/tuning.ts',
  uploads: 'src/uploads/tuning.ts',
  upstreams: 'src/providers/upstreams/tuning.ts',
  cog: 'src/providers/cog/tuning.ts',
  jobs: 'src/jobs/tuning.ts',
  dialects: 'src/dialects/tuning.ts',
  batches: 'src/batches/tuning.ts',
  observability: 'src/observability/tuning.ts',
  webhooks: 'src/webhooks/tuning.ts',
  destinations: 'src/outputs/destinations/tuning.ts',
  outputs: 'src/outputs/tuning.ts',
  outputDelivery: 'src/outputs/delivery/tuning.ts',
  providers: 'src/providers/local/tuning.ts',
};

/**
 * A variable that is no longer read, and where it went: a tuning value (`tuning`, its dotted path), or another
 * setting (`replacedBy`, said in Markdown; each variable it names is declared or read by the scripts). A name that is
 * also another program's own variable (MinIO's root user) stays in the files that set it for that program
 * (`stillNamedIn`), and in no other.
 */
export type FormerVariable = { variable: string; tuning: string } | ReplacedVariable;
export interface ReplacedVariable {
  variable: string;
  replacedBy: string;
  stillNamedIn?: readonly string[];
}

const tuned = (variable: string, tuning: string): FormerVariable => ({ variable, tuning });
const replaced = (variable: string, replacedBy: string, stillNamedIn?: readonly string[]): FormerVariable => ({ variable, replacedBy, ...(stillNamedIn ? { stillNamedIn } : {}) });

/** Where the MinIO server's own root user is still set: the servers the project starts, compose and its docs. */
const MINIO_SERVER_FILES = ['scripts/lib/minio.js', 'docker-compose.yml'];
const MINIO_ROOT_PASSWORD_FILES = [...MINIO_SERVER_FILES, 'test/system/infra/compose.test.ts', 'docs/deploy.md', 'docs/security.md'];

/** The variables that were settings and are no longer read: each with where it went. */
export const FORMER_VARIABLES: readonly FormerVariable[] = [
  tuned('API_KEY_CACHE_TTL_MS', 'api.keyCacheTtlMs'),
  tuned('OPEN_STREAMS_PER_ACCOUNT', 'api.openStreams.perAccount'),
  tuned('OPEN_STREAMS_PER_EVENTS_URL', 'api.openStreams.perEventsUrl'),
  tuned('OPEN_STREAMS_TOTAL', 'api.openStreams.total'),
  tuned('MAX_BUFFERED_BODY_BYTES', 'api.requestBodies.maxBufferedBytes'),
  tuned('MAX_BUFFERED_BODY_BYTES_PER_ACCOUNT', 'api.requestBodies.maxBufferedBytesPerAccount'),
  tuned('MAX_BUFFERED_CALLBACK_BYTES', 'api.requestBodies.maxBufferedCallbackBytes'),
  tuned('REQUEST_BODY_TIMEOUT_MS', 'api.requestBodies.bodyTimeoutMs'),
  tuned('WORKFLOW_CACHE_SIZE', 'temporal.workflowCacheSize'),
  tuned('UPLOAD_PUT_WINDOW_SECONDS', 'uploads.putWindowSeconds'),
  tuned('UPLOAD_LIFETIME_SECONDS', 'uploads.lifetimeSeconds'),
  tuned('UPLOAD_MAX_OPEN_PER_ACCOUNT', 'uploads.maxOpenPerAccount'),
  tuned('UPLOAD_MAX_OPEN_BYTES_PER_ACCOUNT', 'uploads.maxOpenBytesPerAccount'),
  tuned('UPLOAD_SWEEP_INTERVAL_MS', 'uploads.sweepIntervalMs'),
  tuned('UPSTREAM_POLL_INTERVAL_MS', 'upstreams.pollIntervalMs'),
  tuned('UPSTREAM_SAFETY_NET_POLL_MS', 'upstreams.safetyNetPollMs'),
  tuned('UPSTREAM_TIMEOUT_SECONDS', 'upstreams.timeoutSeconds'),
  tuned('UPSTREAM_CHECK_RETRY_INITIAL_MS', 'upstreams.checkRetryInitialMs'),
  tuned('UPSTREAM_REQUEST_TIMEOUT_MS', 'upstreams.requestTimeoutMs'),
  tuned('UPSTREAM_MAX_OUTPUT_BYTES', 'upstreams.maxOutputBytes'),
  tuned('UPSTREAM_CALLBACK_RETENTION_HOURS', 'upstreams.callbackRetentionHours'),
  tuned('COG_SLOT_WAIT_MS', 'cog.slotWaitMs'),
  tuned('COG_MISSING_GRACE_MS', 'cog.missingGraceMs'),
  tuned('JOB_ADMISSION_TIMEOUT_MS', 'jobs.admissionTimeoutMs'),
  tuned('JOB_ADMISSION_MIN_TIMEOUT_MS', 'jobs.admissionMinTimeoutMs'),
  tuned('JOB_ADMISSION_MAX_IN_FLIGHT', 'jobs.admissionMaxInFlight'),
  tuned('OUTPUT_URL_TTL_SECONDS', 'jobs.outputUrlTtlSeconds'),
  tuned('EVENTS_URL_TTL_SECONDS', 'jobs.eventsUrlTtlSeconds'),
  tuned('OPENAI_IMAGES_WAIT_SECONDS', 'dialects.openAiImagesWaitSeconds'),
  tuned('REPLICATE_WAIT_SECONDS', 'dialects.replicateWaitSeconds'),
  tuned('REPLICATE_PREDICTIONS_PAGE_SIZE', 'dialects.replicatePageSize'),
  tuned('BATCH_MAX_ITEMS', 'batches.maxItems'),
  tuned('BATCH_MAX_FILE_BYTES', 'batches.maxFileBytes'),
  tuned('BATCH_MAX_OPEN_PER_ACCOUNT', 'batches.maxOpenPerAccount'),
  tuned('BATCH_CONCURRENCY_SHARE', 'batches.concurrencyShare'),
  tuned('BATCH_ADMIT_PER_ROUND', 'batches.admitPerRound'),
  tuned('BATCH_ROUND_INTERVAL_MS', 'batches.roundIntervalMs'),
  tuned('BATCH_ROUNDS_PER_RUN', 'batches.roundsPerRun'),
  tuned('BATCH_ROUND_HEARTBEAT_TIMEOUT_MS', 'batches.roundHeartbeatTimeoutMs'),
  tuned('BATCH_EVENTS_INTERVAL_MS', 'batches.eventsIntervalMs'),
  tuned('TASK_QUEUE_BACKLOG_SAMPLE_MS', 'observability.backlogSampleMs'),
  tuned('STORED_USAGE_SAMPLE_MS', 'observability.storedUsageSampleMs'),
  tuned('WEBHOOK_RETRY_SCHEDULE', 'webhooks.retryScheduleSeconds'),
  tuned('WEBHOOK_TIMEOUT_MS', 'webhooks.timeoutMs'),
  tuned('WEBHOOK_SECRET_ROTATION_WINDOW_SECONDS', 'webhooks.secretRotationWindowSeconds'),
  tuned('WEBHOOK_MAX_RESPONSE_BYTES', 'webhooks.maxResponseBytes'),
  tuned('WEBHOOK_MAX_PAYLOAD_BYTES', 'webhooks.maxPayloadBytes'),
  tuned('WEBHOOK_PROGRESS_INTERVAL_SECONDS', 'webhooks.progressIntervalSeconds'),
  tuned('DESTINATION_PROBE_TIMEOUT_MS', 'destinations.probeTimeoutMs'),
  tuned('DESTINATION_PROBES_PER_HOUR', 'destinations.probesPerHour'),
  tuned('OUTPUT_RETENTION_MIN_SECONDS', 'outputs.retentionMinSeconds'),
  tuned('OUTPUT_RETENTION_SWEEP_INTERVAL_SECONDS', 'outputs.retentionSweepIntervalSeconds'),
  tuned('OUTPUT_RETENTION_SWEEP_BATCH', 'outputs.retentionSweepBatch'),
  tuned('OUTPUT_RETENTION_SWEEP_CONCURRENCY', 'outputs.retentionSweepConcurrency'),
  tuned('OUTPUT_DELIVERY_RETRY_SECONDS', 'outputDelivery.retrySeconds'),
  tuned('OUTPUT_DELIVERY_FIRST_BACKOFF_SECONDS', 'outputDelivery.firstBackoffSeconds'),
  tuned('OUTPUT_DELIVERY_MAX_BACKOFF_SECONDS', 'outputDelivery.maxBackoffSeconds'),
  tuned('OUTPUT_DELIVERY_ATTEMPT_TIMEOUT_SECONDS', 'outputDelivery.attemptTimeoutSeconds'),
  tuned('OUTPUT_DELIVERY_REQUEST_TIMEOUT_SECONDS', 'outputDelivery.requestTimeoutSeconds'),
  tuned('OUTPUT_DELIVERY_MAX_PER_ACCOUNT', 'outputDelivery.maxPerAccount'),
  tuned('TEMPORAL_FAIRNESS', 'jobs.fairness'),
  tuned('TEMPORAL_WORKER_VERSIONING', 'temporal.workerVersioning'),
  tuned('PROVIDER_TIME_SCALE', 'providers.timeScale'),
  tuned('FAILURE_INJECTION', 'providers.failureInjection'),
  replaced('WORKER_METRICS_PORT', '`METRICS_PORT`, read by whichever process it is'),
  replaced('WORKER_METRICS_HOST', '`METRICS_HOST`'),
  replaced('API_METRICS_PORT', '`METRICS_PORT`, read by whichever process it is'),
  replaced('API_METRICS_HOST', '`METRICS_HOST`'),
  replaced('PROVENANCE_CERT_CHAIN_FILE', '`PROVENANCE_CERT_CHAIN`, which takes the PEM or the path of a file holding it'),
  replaced('PROVENANCE_TRUST_ANCHORS_FILE', '`PROVENANCE_TRUST_ANCHORS`, which takes the PEM or the path of a file holding it'),
  replaced('PROVENANCE_PRIVATE_KEY_FILE', '`PROVENANCE_PRIVATE_KEY`, which takes the PEM or the path of a file holding it'),
  replaced('DESTINATION_ALLOW_PRIVATE', '`INPUT_FETCH_ALLOW_PRIVATE`, which also allows account destinations on private addresses (development allows them anyway)'),
  replaced('PROVIDER_MAX_CONCURRENCY', '`PROVIDER_CONCURRENCY`, whose bare number (`8`, or `8,lumina=2` beside overrides) is the default of every provider'),
  replaced('CONSOLE_DEV', "`npm run dev`'s own API entry, `scripts/devApi.js`, which serves the console from its sources with hot reload (`npm run cluster` serves the build, as a deployment does)"),
  replaced('CONSOLE_DEV_API_KEY', "`npm run dev`'s own API entry, `scripts/devApi.js`, which fills the sign-in form with the dev key the seed saved in the data directory"),
  replaced('JOBS_TASK_QUEUE', '`TEMPORAL_TASK_QUEUE_PREFIX`: the workflow worker\'s task queue is `<prefix>jobs`'),
  replaced('PROVIDER_TASK_QUEUE_PREFIX', '`TEMPORAL_TASK_QUEUE_PREFIX`: the provider task queues are `<prefix>provider.<providerId>`'),
  replaced('TEMPORAL_DEPLOYMENT_NAME', '`TEMPORAL_TASK_QUEUE_PREFIX`: the worker deployment is `<prefix>genmedia`'),
  replaced('MINIO_ROOT_USER', "`MINIO_ACCESS_KEY`, whose default is the dev stack's root user; the MinIO server keeps reading its own root user from this name", MINIO_SERVER_FILES),
  replaced('MINIO_ROOT_PASSWORD', "`MINIO_SECRET_KEY`, which production refuses at the built-in or `minioadmin` value; the MinIO server keeps reading its own root password from this name", MINIO_ROOT_PASSWORD_FILES),
];

/** The former variables that are tuning values now, and those another setting replaced. */
export const TUNED_VARIABLES = FORMER_VARIABLES.filter((former): former is { variable: string; tuning: string } => 'tuning' in former);
export const REPLACED_VARIABLES = FORMER_VARIABLES.filter((former): former is ReplacedVariable => 'replacedBy' in former);

/** The default of a tuning value, by its dotted path. */
export function tuningDefault(field: string): unknown {
  return field.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], TUNING.parse(undefined));
}

/** Every declared setting, the signing key's (read by the processes that sign alone) after the others. */
export function declaredSettings(): Setting[] {
  return [...listSettings(SETTINGS), ...listSettings(SIGNING_KEY_SETTINGS)].map(({ setting }) => setting);
}

/**
 * The default as the page shows it: the declaration's own words when it has them, else the schema's default said as
 * the value the variable takes (`unset` when it has none, `empty` for the empty string).
 */
export function shownDefault(setting: Setting): string {
  if (setting.docs.default !== undefined) return setting.docs.default;
  const parsed = setting.schema.safeParse(undefined);
  if (!parsed.success) throw new Error(`${setting.variable}: its schema refuses an unset variable; declare docs.default`);
  const value: unknown = parsed.data;
  if (value === undefined) return 'unset';
  if (value === '') return 'empty';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return `\`${String(value)}\``;
  throw new Error(`${setting.variable}: its default (${JSON.stringify(value)}) is not a value of the variable; declare docs.default`);
}

const cell = (text: string) => text.replace(/\|/g, '\\|');
const row = (variable: string, shown: string, description: string) => `| \`${variable}\` | ${cell(shown)} | ${cell(description)} |`;

const HEAD = `# Configuration

<!-- Generated by \`npm run docs:config\` (scripts/docs/configuration.ts) from the declarations of src/config.ts: edit those, not this file. -->

The environment holds what a deployment sets, and only that: where the database, Temporal and the object store are
and the credentials to reach them, the secrets, the public addresses, the ports of the processes, the providers' keys
and concurrency, and the switches an operator flips. One variable serves each of these: \`METRICS_PORT\` and
\`METRICS_HOST\` place the metrics of whichever process reads them, each PEM setting takes the PEM or the path of a
file, \`PROVIDER_CONCURRENCY\` holds the default and the per-provider counts, \`TEMPORAL_TASK_QUEUE_PREFIX\` starts
every name a deployment has in Temporal. The features' timeouts, intervals, limits and windows, and what only tests
change (the built-in provider's time scale and failure injection, fair share, worker versioning), are not read from it:
they are [tuning](#tuning), constants of each feature that tests change. What only \`npm run dev\` needs (the ports of
the services it starts, its data folder, the console's hot reload) is the dev stack's, read by the scripts
([below](#read-by-the-scripts)). The variables these replaced are [listed](#former-variables) with what replaced
them. A few variables are set by nothing in this repository and stay because a deployment may need them:
\`HTTP_KEEP_ALIVE_TIMEOUT_MS\` (above a load balancer's idle timeout), \`MINIO_REGION\` (an S3 outside \`us-east-1\`),
\`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT\` and \`OTEL_SERVICE_NAME\` (the OpenTelemetry SDK's own).

Everything is read once, validated, from the environment by \`src/config.ts\`, which declares each variable once with
its validation, its default and its description; the defaults make \`npm run dev\` work untouched, and wrong values
stop the process with each variable's name. Booleans accept \`1\`/\`true\`/\`0\`/\`false\`. This page is written from
those declarations, and \`test/unit/config/documented.test.ts\` fails when it differs from them or gives a default
that is not the declared one.

| variable | default | meaning |
|---|---|---|
`;

const SCRIPTS = `
## Read by the scripts

| variable | default | meaning |
|---|---|---|
`;

const TUNING_HEAD = `
## Tuning

Each feature declares its tuning once, with its default and bounds, in a \`tuning.ts\` in its folder
(\`src/lib/tuning.ts\` says how); \`src/config.ts\` gathers them into the configuration, where the feature reads them
beside its settings (\`config.webhooks.timeoutMs\`). A deployment runs them as they are. A test changes them through
its test configuration, typed and checked as the defaults are: \`startTestStack({ tuning: { webhooks: { timeoutMs:
2000 } } })\`, \`testConfig(env, tuning)\`, \`startTestApi(env, tuning)\` (\`test/support/\`). The processes a test
spawns get the same values from one file, \`workerProcessEnv(config, tuning)\` writing it and
\`GENMEDIA_TEST_TUNING\` naming it; a process started with \`NODE_ENV=production\` refuses to start while that variable
is set, and a value no feature declares, or out of its bounds, stops any process naming the value.

These were settings of the environment, and are tuning values now; the variables are no longer read (nor are
[those other settings replaced](#former-variables)):

| former variable | tuning value | default | declared in |
|---|---|---|---|
`;

const REPLACED_HEAD = `
## Former variables

These were settings of the environment, and are no longer read; a process started with one set ignores it, as it
ignores the tuning's former variables:

| former variable | now |
|---|---|
`;

const TAIL = `
## Read elsewhere

The upstreams' credentials and origin overrides (\`FAL_KEY\`, \`REPLICATE_API_TOKEN\`, \`RUNWAYML_API_SECRET\`,
\`GEMINI_API_KEY\`, \`OPENAI_API_KEY\` and their \`*_BASE_URL\`s, [providers.md](providers.md#real-upstreams-fal-replicate-runway-google-openai);
\`REPLICATE_WEBHOOK_SECRET\`, \`FAL_USER_ID\`, \`FAL_JWKS_URL\` and \`FAL_ADMIN_KEY\` in [providers.md](providers.md));
HTTP providers' \`PROVIDER_HTTP_<ID>_*\` variables (\`src/providers/http/config.ts\`, table in
[providers.md](providers.md#configuration)); \`GENMEDIA_KEEP_TEST_DATA\` (\`npm test\`, [testing.md](testing.md));
\`XDG_CACHE_HOME\` (binary cache, [development.md](development.md)); \`NO_COLOR\` (plain script output); the MinIO
server's own \`MINIO_API_CORS_ALLOW_ORIGIN\` ([uploads.md](uploads.md#cors-browser-uploads)).
`;

/** The page, as docs/configuration.md must hold it. */
export function renderConfigurationDoc(): string {
  const settings = declaredSettings().map((s) => row(s.variable, shownDefault(s), s.description));
  const scripts = SCRIPT_SETTINGS.map((s) => row(s.variable, s.default, s.description));
  const tuning = TUNED_VARIABLES.map(({ variable, tuning: field }) => {
    const file = TUNING_FILES[field.split('.')[0] as keyof typeof TUNING_FILES];
    return `| \`${variable}\` | \`${field}\` | \`${JSON.stringify(tuningDefault(field))}\` | [${file}](../${file}) |`;
  });
  const replacedRows = REPLACED_VARIABLES.map(({ variable, replacedBy }) => `| \`${variable}\` | ${cell(replacedBy)} |`);
  return `${HEAD}${settings.join('\n')}\n${SCRIPTS}${scripts.join('\n')}\n${TUNING_HEAD}${tuning.join('\n')}\n${REPLACED_HEAD}${replacedRows.join('\n')}\n${TAIL}`;
}

if (require.main === module) {
  fs.writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc());
  console.log(`wrote ${path.relative(process.cwd(), CONFIGURATION_DOC)}`);
}
