/**
 * GET /v1/batches/{batchId}/events: a batch's progress as Server-Sent Events, the batch as GET /v1/batches/{batchId}
 * shows it whenever its counts, cost or status change (at most one every batches.eventsIntervalMs), until it is final.
 * Streamed as the job events are: better-sse, our own heartbeat, the account's cap on open streams.
 */
import type { Request } from 'express';
import { Router } from 'express';
import { createSession } from 'better-sse';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import { clientDeparture } from '../middleware/clientDeparture';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponse, errorResponses, registry } from '../openapi';
import { BatchEventIdSchema, BatchIdParamsSchema, BatchSchema } from '../../contracts/http/batches';
import { parseWith } from '../validate';
import type { BatchService } from '../../batches/service';
import type { BatchProgress } from '../../batches/progressFeed';
import { BATCH_COMPLETED_EVENT, BATCH_PROGRESS_EVENT } from '../../shared/batches';

const HEARTBEAT_MS = 15_000;
const RECONNECT_HINT_MS = 2_000;

registry.registerPath({
  method: 'get',
  path: '/v1/batches/{batchId}/events',
  operationId: 'listBatchEvents',
  tags: ['Batches'],
  summary: "Follow a batch's progress",
  description:
    'With `Accept: text/event-stream`, the batch as `GET /v1/batches/{batchId}` shows it at once, then again whenever its counts, ' +
    'cost or status change (`batch.progress`, at most one every batches.eventsIntervalMs, 1 s by default: changes in between are ' +
    'folded into the next), and `batch.completed` once it is final (`completed`, `cancelled` or `expired`), after which the stream ' +
    "closes. Each event's id names what it shows: a reconnect with `Last-Event-ID` is sent the batch only once it shows something " +
    'else, and answers 204 once the batch is final and the client has its final event, which tells an EventSource to stop. ' +
    'Without that Accept header, the batch as JSON. Scope: `check_status`.',
  security: [{ [bearerAuth.name]: [] }],
  request: {
    params: BatchIdParamsSchema,
    headers: z.object({ 'Last-Event-ID': BatchEventIdSchema.optional() }),
  },
  responses: {
    200: {
      description: 'The batch as JSON; with `Accept: text/event-stream`, a stream of Server-Sent Events.',
      content: {
        'application/json': { schema: BatchSchema },
        'text/event-stream': {
          schema: z.string().openapi({
            description:
              'Server-Sent Events (text): for each event the lines `event: batch.progress` (or `batch.completed`, the last), `id: <id>` and ' +
              '`data: <Batch JSON>` (the `Batch` schema), then a blank line; a `:` heartbeat comment every 15 s; `retry: 2000` first.',
            example: 'retry: 2000\n\nevent: batch.progress\nid: q3H0u7Zb1KcVt9Lx\ndata: {"batchId":"bat_3kTMd9Qx0vLw7bYz1aR5nC","status":"running",...}\n\n',
          }),
        },
      },
    },
    204: { description: 'Stream requested with the `Last-Event-ID` of the final event of a final batch: it is over' },
    ...errorResponses(400, 401, 403, 404),
    429: errorResponse(429, 'Too many event streams and `Prefer: wait` requests open (RATE_LIMIT_EXCEEDED, per account or per API process); retry after Retry-After'),
  },
});

function wantsStream(req: Request): boolean {
  return (req.get('accept') ?? '').includes('text/event-stream');
}

function eventType(progress: BatchProgress): string {
  return progress.final ? BATCH_COMPLETED_EVENT : BATCH_PROGRESS_EVENT;
}

export function batchEventsRouter(deps: ApiDeps, batches: BatchService): Router {
  const router = Router();
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });

  router.get('/v1/batches/:batchId/events', statusScope, async (req, res) => {
    const batchId = String(req.params.batchId);
    const accountId = getAuth(res).account.id;
    const header = req.get('last-event-id');
    const afterId = header === undefined ? undefined : parseWith(BatchEventIdSchema, header.trim(), 'VALIDATION_ERROR', 'Last-Event-ID');
    if (!wantsStream(req)) {
      res.json(await batches.get(accountId, batchId));
      return;
    }
    const departure = clientDeparture(res);
    deps.openStreams.holdUntil(departure, accountId, 'events');
    const feed = await batches.progress(accountId, batchId, afterId);
    const closeFeed = () => feed.close();
    departure.addEventListener('abort', closeFeed, { once: true });
    let heartbeat: NodeJS.Timeout | undefined;
    try {
      if (feed.current.final && feed.current.id === afterId) {
        res.status(204).end();
        return;
      }
      if (departure.aborted) return;
      const session = await createSession(req, res, { keepAlive: null, retry: RECONNECT_HINT_MS, trustClientEventId: false });
      if (departure.aborted) return;
      heartbeat = setInterval(() => res.write(':\n\n'), HEARTBEAT_MS);
      for await (const progress of feed) {
        if (departure.aborted) break;
        session.push(progress.batch, eventType(progress), progress.id);
      }
    } finally {
      clearInterval(heartbeat);
      departure.removeEventListener('abort', closeFeed);
      feed.close();
      res.end();
    }
  });

  return router;
}
