import { Router, type RequestHandler } from 'express';
import { actorOf, getAuth, requireApiKey } from '../auth';
import type { ApiDeps } from '../deps';
import type { BodyReaders } from '../middleware/requestBodies';
import { bearerAuth, errorResponses, registry } from '../openapi';
import { parseWith } from '../validate';
import { DestinationSchema, PutDestinationBodySchema } from '../../contracts/http/destination';
import type { DestinationService } from '../../outputs/destinations/service';
import { ApiError } from '../apiError';
import { MANAGE_OUTPUTS_SCOPE } from '../../shared/scopes';

const security = [{ [bearerAuth.name]: [] }];
const PATH = '/v1/account/destination';

registry.registerPath({
  method: 'get',
  path: PATH,
  operationId: 'getDestination',
  tags: ['Account'],
  summary: "Your account's destination bucket",
  description:
    'The S3-compatible bucket completed jobs\' outputs are delivered to: everything but the secret access key, which ' +
    'is never returned (`secretSet` says one is stored). 404 `DESTINATION_NOT_FOUND` when none is configured. ' +
    'Scope: `check_status`.',
  security,
  responses: {
    200: { description: 'The destination', content: { 'application/json': { schema: DestinationSchema } } },
    ...errorResponses(401, 403, 404),
  },
});

registry.registerPath({
  method: 'put',
  path: PATH,
  operationId: 'setDestination',
  tags: ['Account'],
  summary: 'Configure your destination bucket',
  description:
    'Sets (or replaces) the bucket completed jobs\' outputs are delivered to. The endpoint must resolve to public ' +
    'addresses (400 `DESTINATION_ADDRESS_REFUSED`). Before anything is saved a probe object is written under the ' +
    'prefix, read back and deleted; when that fails nothing is saved and the answer is 422 with ' +
    '`DESTINATION_UNREACHABLE`, `DESTINATION_CREDENTIALS_REFUSED`, `DESTINATION_ACCESS_DENIED`, ' +
    '`DESTINATION_BUCKET_NOT_FOUND` or `DESTINATION_PROBE_FAILED` (`details.operation`: `write`, `read` or `delete`). ' +
    'The secret access key is write-only. Each attempt counts against the account\'s probes of the hour ' +
    '(`destinations.probesPerHour`, 20): past them the answer is 429 `DESTINATION_PROBE_LIMIT_EXCEEDED` with ' +
    '`Retry-After`, and nothing is sent. A saved change is written to the audit log (`destination.set`). ' +
    'Scope: `manage_outputs`, on a key not limited to some models (403 `KEY_MODEL_LIMITED`).',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: PutDestinationBodySchema } } } },
  responses: {
    200: { description: 'The destination as saved', content: { 'application/json': { schema: DestinationSchema } } },
    ...errorResponses(400, 401, 403, 408, 413, 422, 429),
  },
});

registry.registerPath({
  method: 'delete',
  path: PATH,
  operationId: 'deleteDestination',
  tags: ['Account'],
  summary: 'Remove your destination bucket',
  description:
    'Removes the destination and its stored secret; jobs completed afterwards are not delivered. Idempotent: 204 ' +
    'also when none was configured. A removal is written to the audit log (`destination.remove`). Scope: ' +
    '`manage_outputs`, on a key not limited to some models (403 `KEY_MODEL_LIMITED`).',
  security,
  responses: {
    204: { description: 'No destination is configured now' },
    ...errorResponses(401, 403),
  },
});

/** A destination is a few short strings. */
const DESTINATION_BODY_LIMIT = 16 * 1024;

/**
 * The destination receives every output of the account, of every model: a key limited to some models may not
 * choose it, whatever its scopes.
 */
const refuseModelLimitedKey: RequestHandler = (_req, res, next) => {
  const { allowedModels } = getAuth(res).apiKey;
  if (allowedModels.length > 0) {
    throw new ApiError(
      'KEY_MODEL_LIMITED',
      "This API key is limited to some models; the account's destination receives the outputs of every model, so only a key without a model limit may change it",
      { allowedModels },
    );
  }
  next();
};

export function destinationRouter(deps: ApiDeps, destinations: DestinationService, bodies: BodyReaders): Router {
  const router = Router();
  const read = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });
  const write = [requireApiKey(deps.keys, { credential: 'bearer', scope: MANAGE_OUTPUTS_SCOPE }), refuseModelLimitedKey];

  router.get(PATH, read, async (_req, res) => {
    const destination = await destinations.get(getAuth(res).account.id);
    if (!destination) throw new ApiError('DESTINATION_NOT_FOUND', 'No destination is configured for this account');
    res.json(destination);
  });

  router.put(PATH, ...write, ...bodies.json(DESTINATION_BODY_LIMIT), async (req, res) => {
    const body = parseWith(PutDestinationBodySchema, req.body ?? {});
    res.json(await destinations.configure(getAuth(res).account.id, body, actorOf(res)));
  });

  router.delete(PATH, ...write, async (_req, res) => {
    await destinations.remove(getAuth(res).account.id, actorOf(res));
    res.status(204).end();
  });

  return router;
}
