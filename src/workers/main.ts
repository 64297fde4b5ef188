/**
 * Worker process entrypoint.
 *   --workflows            the `jobs` task queue (workflows and bookkeeping activities)
 *   --provider <id...>     the `provider.<id>` task queue(s), provider activities only
 *   --cog-providers        every provider with the cog adapter, those imported later included (cogProviderWatcher.ts)
 *   --list-providers       prints the catalog's active provider ids as a JSON array and exits (cog providers are
 *                          left to --cog-providers)
 * SIGTERM/SIGINT drain: pollers stop, running tasks finish (within the grace time), then clients close.
 */
import './instrument';
import { Command } from 'commander';
import type { Worker } from '@temporalio/worker';
import { dropSigningKeyVariables, loadConfig, loadSigningKey } from '../config';
import { createPrisma } from '../db/prisma';
import { createLogger, type Logger } from '../logger';
import { kindOf, kindsRunBy } from '../providers/kinds';
import { isProviderAvailable } from '../providers/availability';
import { openWorkerConnections } from './connections';
import { ensureMaintenanceSchedule, ensureReconcileSchedule, ensureRetentionSchedule } from './maintenanceSchedule';
import { installTemporalRuntime } from './temporalRuntime';
import { freeLoopbackPort } from '../lib/freePort';
import { createWorkerMetrics } from './metrics';
import { startMetricsServer } from '../observability/metricsServer';
import { startTracing } from '../observability/tracing';
import { watchCogProviders } from './cogProviderWatcher';
import { makeCurrentIfNew, watchCurrentVersion, type CurrentVersionClaim, type CurrentVersionWatch, type DeploymentVersion } from './workerDeployment';

interface Options {
  workflows?: boolean;
  provider?: string[];
  cogProviders?: boolean;
  listProviders?: boolean;
}

/** How often the Cog worker looks for providers an operator imported. */
const COG_PROVIDER_WATCH_MS = 5_000;
/**
 * A build that has been current before takes current back once the current build has had no live workflow worker for
 * this long (a restart of that build's workers takes less), looking this often.
 */
const CURRENT_TAKEOVER_AFTER_MS = 15_000;
const CURRENT_WATCH_MS = 5_000;

function logClaim(logger: Logger, version: DeploymentVersion, claim: CurrentVersionClaim): void {
  const fields = { deployment: version.deploymentName, buildId: version.buildId, outcome: claim.outcome };
  if (claim.outcome !== 'taken-back') {
    logger.info({ ...fields, ...(claim.previous ? { currentBuildId: claim.previous.buildId } : {}) }, 'worker deployment version');
    return;
  }
  const idleSeconds = claim.previous?.lastSeenMs === undefined ? undefined : Math.round((Date.now() - claim.previous.lastSeenMs) / 1000);
  logger.warn(
    { ...fields, previousBuildId: claim.previous?.buildId, previousIdleSeconds: idleSeconds },
    'worker deployment version: took current back from a build with no live worker',
  );
}

async function listProviders(): Promise<void> {
  const config = loadConfig();
  const prisma = createPrisma(config.database.url, { poolSize: 1 });
  try {
    // Inactive providers, upstreams without credentials and makers (whose models run on their routes) accept no
    // jobs, so they get no worker; Cog providers are the Cog worker's.
    const providers = await prisma.provider.findMany({ select: { id: true, isActive: true, adapter: true }, orderBy: { id: 'asc' } });
    const available = providers.filter((p) => kindOf(p.adapter)?.worker === 'own' && isProviderAvailable(p));
    process.stdout.write(`${JSON.stringify(available.map((p) => p.id))}\n`);
  } finally {
    await prisma.$disconnect();
  }
}

async function runWorkers(options: Options): Promise<void> {
  const config = loadConfig();
  // Only provider workers sign outputs: the key is read where they run, and dropped from every worker's environment.
  const signs = Boolean(options.provider?.length) || options.cogProviders === true;
  const signingKey = signs ? loadSigningKey(config) : undefined;
  const droppedKeyVariables = dropSigningKeyVariables();
  const logger = createLogger('worker', config.logLevel);
  // Listened for first, so a stop that comes while the workers are still starting ends their start-up waits too.
  const stopping = new AbortController();
  const stopOn = (signal: NodeJS.Signals) => process.once(signal, () => stopping.abort(signal));
  stopOn('SIGTERM');
  stopOn('SIGINT');
  if (!signs && droppedKeyVariables.length > 0) {
    logger.warn({ variables: droppedKeyVariables }, 'the signing key is set for a worker that signs nothing: ignored; give it to the provider workers only');
  }
  const tracing = startTracing(config, 'genmedia-worker');
  const sdkMetricsAddress = `127.0.0.1:${await freeLoopbackPort()}`;
  installTemporalRuntime(logger, { sdkMetricsAddress });
  const metrics = createWorkerMetrics();
  const metricsServer = await startMetricsServer({
    registry: metrics.registry,
    host: config.observability.metricsHost,
    port: config.observability.workerMetricsPort,
    bearerToken: config.observability.metricsBearerToken,
    extra: () => fetch(`http://${sdkMetricsAddress}/metrics`).then((res) => res.text()),
  }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EADDRINUSE') throw err;
    throw new Error(`METRICS_PORT ${config.observability.workerMetricsPort} is taken: give each worker process its own (0 picks a free one)`);
  });
  logger.info({ metrics: metricsServer.url }, 'metrics served');
  const connections = await openWorkerConnections(config, tracing);
  const { prisma, storage, connection, client } = connections;

  // Each kind is loaded only where it runs: the provider side alone brings sharp and every upstream SDK (~30 MB).
  const workflowWorkers: Worker[] = options.workflows
    ? [
        await (await import('./workflowWorker')).createWorkflowWorker({
          config,
          connection,
          client,
          prisma,
          storage,
          metrics,
          tracing,
          deployment: config.temporal.deployment,
          logger,
        }),
      ]
    : [];
  if (options.workflows) {
    await ensureMaintenanceSchedule(client, config.temporal.jobsTaskQueue);
    await ensureReconcileSchedule(client, config.temporal.jobsTaskQueue);
    await ensureRetentionSchedule(client, config.temporal.jobsTaskQueue, config.outputs.retentionSweepIntervalSeconds);
  }
  const providerWorkers: Worker[] = [];
  const providerRuns: Promise<void>[] = [];
  const createWorker = async (providerId: string) =>
    (await import('./providerWorker')).createProviderWorker({ config, connection, client, prisma, storage, providerId, metrics, tracing, signingKey });
  const runWorker = async (worker: Worker, providerId: string) => (await import('./providerWorker')).runProviderWorker(worker, { prisma, providerId, config });
  const providerIds = options.provider ?? [];
  for (const providerId of providerIds) providerWorkers.push(await createWorker(providerId));
  const workers = [...providerWorkers, ...workflowWorkers];
  logger.info({ taskQueues: workers.map((w) => w.options.taskQueue) }, 'workers starting');
  providerWorkers.forEach((w, i) => providerRuns.push(runWorker(w, providerIds[i]!)));
  const workflowRuns = workflowWorkers.map((w) => w.run());
  const currentWatches: CurrentVersionWatch[] = [];
  let cogWatcher: ReturnType<typeof watchCogProviders> | undefined;

  let drained: () => void = () => undefined;
  const untilDrained = new Promise<void>((resolve) => (drained = resolve));
  const stop = (list: Worker[]) => list.filter((w) => w.getState() === 'RUNNING').forEach((w) => w.shutdown());
  // Provider workers drain first, so the results of the jobs they finish reach the workflows before those stop.
  const shutdown = () => {
    logger.info({ signal: stopping.signal.reason }, 'draining workers');
    cogWatcher?.stop();
    for (const watch of currentWatches) watch.stop();
    stop(providerWorkers);
    void Promise.allSettled(providerRuns).then(() => stop(workflowWorkers));
    drained();
  };
  if (stopping.signal.aborted) shutdown();
  else stopping.signal.addEventListener('abort', shutdown, { once: true });

  for (const worker of workflowWorkers) {
    const version = worker.options.workerDeploymentOptions?.version;
    if (!version) continue;
    // New workflows start on a build once it is current; a new build takes that over from the one before it, and a
    // build that ran before takes it back from a current build nothing runs any more.
    const takeOver = { taskQueue: config.temporal.jobsTaskQueue, afterMs: CURRENT_TAKEOVER_AFTER_MS };
    const identity = worker.options.identity;
    const claim = await makeCurrentIfNew(client.workflowService, config.temporal.namespace, version, { identity, takeOver, signal: stopping.signal }).catch(
      (err: unknown) => {
        if (stopping.signal.aborted) return undefined;
        throw err;
      },
    );
    if (!claim) break;
    logClaim(logger, version, claim);
    currentWatches.push(
      watchCurrentVersion(client.workflowService, config.temporal.namespace, version, {
        identity,
        takeOver,
        intervalMs: CURRENT_WATCH_MS,
        onClaim: (claim) => logClaim(logger, version, claim),
        onError: (err) => logger.warn({ err, buildId: version.buildId }, 'worker deployment version: could not look at the current build'),
        signal: stopping.signal,
      }),
    );
  }

  if (options.cogProviders && !stopping.signal.aborted) {
    cogWatcher = watchCogProviders({
      intervalMs: COG_PROVIDER_WATCH_MS,
      logger,
      listCogProviders: async () =>
        (await prisma.provider.findMany({ where: { adapter: { in: kindsRunBy('cog') }, isActive: true }, select: { id: true }, orderBy: { id: 'asc' } })).map((p) => p.id),
      startWorker: async (providerId) => {
        const worker = await createWorker(providerId);
        if (stopping.signal.aborted) return;
        providerWorkers.push(worker);
        providerRuns.push(runWorker(worker, providerId));
      },
    });
  }

  try {
    // The Cog worker serves providers that do not exist yet: it runs until it is told to stop.
    if (options.cogProviders) await untilDrained;
    await Promise.all([...providerRuns, ...workflowRuns]);
  } finally {
    await connections.close();
    await metricsServer.close();
    await tracing.shutdown();
    logger.info('workers stopped');
  }
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('worker')
    .description('Runs genmedia Temporal workers')
    .option('--workflows', 'run the workflow worker on the jobs task queue')
    .option('--provider <id...>', 'run a provider worker on provider.<id> (repeatable)')
    .option('--cog-providers', 'serve every provider with the cog adapter, those imported later included')
    .option('--list-providers', 'print the provider ids of the catalog as a JSON array');
  program.parse(argv);
  const options = program.opts<Options>();
  if (options.listProviders) return listProviders();
  if (!options.workflows && !options.provider?.length && !options.cogProviders) {
    program.error('nothing to run: give --workflows, --provider <id> or --cog-providers');
  }
  return runWorkers(options);
}

if (require.main === module) {
  main(process.argv).catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
