import express, { type Application } from 'express';
import type { ApiDeps } from './deps';
import { trackClientDeparture } from './middleware/clientDeparture';
import { corsFor } from './middleware/cors';
import { errorHandler, notFound } from './middleware/errors';
import { routersByPrefix } from './middleware/pathPrefix';
import { requestId } from './middleware/requestId';
import { rejectNul } from './middleware/rejectNul';
import { createBodyReaders } from './middleware/requestBodies';
import { requestLog } from './middleware/requestLog';
import { buildOpenApiDocument } from './openapi';
import { createServices } from './services';
import { httpMetrics } from '../observability/httpMetrics';
import { accountRouter } from './routes/account';
import { adminRouter } from './routes/admin';
import { catalogRouter } from './routes/catalog';
import { consoleRouter } from './routes/console';
import { destinationRouter } from './routes/destination';
import { docsRouter } from './routes/docs';
import { filesRouter } from './routes/files';
import { healthRouter } from './routes/health';
import { jobEventsRouter } from './routes/jobEvents';
import { jobsRouter } from './routes/jobs';
import { metricsRouter } from './routes/metrics';
import { modelsRouter } from './routes/models';
import { uploadsRouter } from './routes/uploads';
import { providerCallbacksRouter } from './routes/providerCallbacks';
import { webhooksRouter } from './routes/webhooks';
import { openAiErrorHandler } from './dialects/openai/errors';
import { provenanceRouter } from './routes/provenance';
import { batchesRouter } from './routes/batches';
import { batchEventsRouter } from './routes/batchEvents';
import { OPENAI_PREFIX, openAiRouter } from './dialects/openai/router';
import { REPLICATE_PREFIX } from './dialects/replicate/prefix';
import { replicateErrorHandler } from './dialects/replicate/errors';
import { replicateRouter } from './dialects/replicate/router';

/** BigInt never reaches JSON by accident: money columns serialize as exact numbers (checked in money.ts). */
function jsonReplacer(_key: string, value: unknown) {
  return typeof value === 'bigint' ? Number(value) : value;
}

/** The Express application, without `listen`, so tests and the server share it. */
export function createApp(deps: ApiDeps): Application {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('json replacer', jsonReplacer);
  app.set('trust proxy', 'loopback');

  app.use(trackClientDeparture());
  app.use(httpMetrics(deps.metrics));
  app.use(requestId());
  app.use(requestLog(deps.logger));
  const cors = corsFor(deps.config.api.corsOrigins);
  if (cors) app.use(cors);
  app.use(rejectNul());
  const services = createServices(deps);
  // Bodies are read by the routes that take one, once the route and the caller's credential are known.
  const bodies = createBodyReaders(deps.config.api.requestBodies);
  app.get('/openapi.json', (_req, res) => {
    res.json(buildOpenApiDocument(deps.config.api.publicBaseUrl));
  });
  // Each router is entered only by the paths under its prefixes (a GET /v1/jobs no longer walks the catalog's, the
  // models' and the docs' routes first); where two routers share a prefix, their order still decides.
  app.use(
    routersByPrefix([
      // Before the models router, which serves GET /v1/providers: the callbacks are POSTs under it.
      [['/v1/providers', '/v1/upstreams'], providerCallbacksRouter(services.providerCallbacks, bodies)],
      [['/healthz', '/readyz'], healthRouter(deps)],
      [['/metrics'], metricsRouter(deps)],
      [['/docs'], docsRouter()],
      [['/console'], consoleRouter(deps)],
      [['/v1/catalog'], catalogRouter(deps, services.catalog)],
      [['/v1/models', '/v1/providers'], modelsRouter(deps, services.catalog)],
      // Before the jobs router: `/v1/jobs/events` is not a job id.
      [['/v1/jobs'], jobEventsRouter(deps, services.jobEvents)],
      [['/v1/jobs'], jobsRouter(deps, services.jobs, bodies)],
      [['/v1/jobs', '/v1/provenance'], provenanceRouter(deps, services.provenance, bodies)],
      [['/v1/jobs'], webhooksRouter(deps, services.webhooks)],
      [['/v1/batches'], batchEventsRouter(deps, services.batches)],
      [['/v1/batches'], batchesRouter(deps, services.batches, bodies)],
      [['/v1/uploads'], uploadsRouter(deps, services.uploads, bodies)],
      [['/v1/account/destination'], destinationRouter(deps, services.destinations, bodies)],
      [['/v1/account'], accountRouter(deps, services.accounts)],
      [['/v1/files'], filesRouter(services.uploads)],
      [['/v1/admin'], adminRouter(deps, services.admin, bodies)],
      [[OPENAI_PREFIX], openAiRouter(deps, services.openAi, bodies)],
      [[REPLICATE_PREFIX], replicateRouter(deps, services.replicate, bodies)],
    ]),
  );

  app.use(notFound());
  // Refusals made before a dialect's router (a NUL in the query) still answer in the dialect's shape.
  app.use(OPENAI_PREFIX, openAiErrorHandler(deps.logger));
  app.use(REPLICATE_PREFIX, replicateErrorHandler(deps.logger));
  app.use(errorHandler(deps.logger));
  return app;
}
