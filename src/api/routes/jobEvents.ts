import type { Request, RequestHandler, Response } from 'express';
import { Router } from 'express';
import { createSession } from 'better-sse';
import { z } from 'zod';
import { getAuth, requireApiKey } from '../auth';
import { clientDeparture } from '../middleware/clientDeparture';
import type { ApiDeps } from '../deps';
import { bearerAuth, errorResponse, errorResponses, registry } from '../openapi';
import { JobEventPageSchema, JobEventsAccessQuerySchema, JobEventsQuerySchema, JobIdParamsSchema, LastEventIdSchema } from '../../contracts/http/jobs';
import { parseWith } from '../validate';
import type { FeedPosition } from '../../jobs/events/feed';
import { jobSequenceAfter, startPosition, type StreamableJob } from '../../jobs/events/read';
import type { JobEventRow } from '../../jobs/events/rows';
import type { JobEventService } from '../../jobs/events/service';
import type { VerifiedEventsUrl } from '../../jobs/events/eventsUrl';
import { endEventsUrlStream } from '../eventsUrlStreamWatch';

const HEARTBEAT_MS = 15_000;
const RECONNECT_HINT_MS = 2_000;
/** With the key cache off, events URL streams still re-check no more than once a second each. */
const MIN_EVENTS_URL_RECHECK_MS = 1_000;
const security = [{ [bearerAuth.name]: [] }];

// JSON first: generated clients take the first media type as the answer they parse.
const eventStreamResponse = {
  description: 'One JSON page of events; with `Accept: text/event-stream`, a stream of Server-Sent Events.',
  content: {
    'application/json': { schema: JobEventPageSchema },
    'text/event-stream': {
      schema: z.string().openapi({
        description:
          'Server-Sent Events (text): for each event the lines `event: <type>`, `id: <position>` and `data: <JobEvent JSON>` ' +
          '(the `JobEvent` schema), then a blank line; a `:` heartbeat comment every 15 s; `retry: 2000` first.',
        example: 'retry: 2000\n\nevent: job.created\nid: 1\ndata: {"eventId":"41","jobId":"job_3kTMd9Qx0vLw7bYz1aR5nC","sequence":1,...}\n\n',
      }),
    },
  },
};

const streamsExceeded = errorResponse(429, 'Too many event streams and `Prefer: wait` requests open (RATE_LIMIT_EXCEEDED, per account or per API process); retry after Retry-After');
const jobStreamsExceeded = errorResponse(
  429,
  'Too many event streams open (RATE_LIMIT_EXCEEDED): per account or per API process, or, with the `eventsUrl` token, ' +
    'per job (api.openStreams.perEventsUrl, apart from the account\'s); retry after Retry-After',
);

const streamHeaders = z.object({
  'Last-Event-ID': LastEventIdSchema.optional().openapi({ description: 'Resume after this position; wins over `since`' }),
});

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/{jobId}/events',
  operationId: 'listJobEvents',
  tags: ['Jobs'],
  summary: "Follow one job's events",
  description:
    'Every change of the job in order: `job.created`, `job.processing`, `job.progress` (at most about one a second), ' +
    'then `job.completed`, `job.failed` or `job.cancelled`. The stream sends every event after `Last-Event-ID` ' +
    '(or `since`), then live ones, and closes after the terminal event; a reconnect after that answers 204, which ' +
    "tells an EventSource to stop. Ids are the job's `sequence`. Scope: `check_status`; or no key at all with the " +
    "job's signed `eventsUrl` (its `token`), which a browser page opens with `new EventSource(eventsUrl)`. The token " +
    'opens the events only while the key that submitted the job and its account may be used (401 once that key is ' +
    'revoked or expired, 403 ACCOUNT_SUSPENDED while the account is suspended); a stream opened with it ends within ' +
    'seconds of either, and when the token expires.',
  security: [...security, {}],
  request: { params: JobIdParamsSchema, query: JobEventsAccessQuerySchema, headers: streamHeaders },
  responses: {
    200: eventStreamResponse,
    204: { description: 'Stream requested and the job has no events after the given position: it is over' },
    ...errorResponses(400, 401, 403, 404),
    401: errorResponse(
      401,
      'Missing, unknown, revoked or expired API key; or a `token` that is forged, expired, for another job, or whose ' +
        'job was submitted with a key since revoked or expired (UNAUTHORIZED)',
    ),
    403: errorResponse(403, 'The key lacks `check_status` (INSUFFICIENT_SCOPE), or the account is suspended (ACCOUNT_SUSPENDED)'),
    429: jobStreamsExceeded,
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/jobs/events',
  operationId: 'listAccountEvents',
  tags: ['Jobs'],
  summary: "Follow all of the account's jobs",
  description:
    "The events of every job of the key's account, in the order they happened. Ids are the `eventId`, the account-wide " +
    'position. The stream starts after `Last-Event-ID` or `since`, or with the next event when neither is given, and ' +
    'stays open (heartbeats) until the client leaves. JSON pages start at the first event. Scope: `check_status`.',
  security,
  request: { query: JobEventsQuerySchema, headers: streamHeaders },
  responses: { 200: eventStreamResponse, ...errorResponses(400, 401, 403), 429: streamsExceeded },
});

function wantsStream(req: Request): boolean {
  return (req.get('accept') ?? '').includes('text/event-stream');
}

/**
 * Streams the feed as Server-Sent Events until it ends, the client leaves or the process stops. The heartbeat is
 * ours, not better-sse's: its timer then lives exactly as long as this function, whenever the client leaves.
 */
async function streamFeed(
  req: Request,
  res: Response,
  events: JobEventService,
  position: FeedPosition,
  idOf: (row: JobEventRow) => string,
  /** Something else that may end the stream early: given the function that ends it, returns the one that stops watching. */
  endEarly?: (end: () => void) => () => void,
) {
  const departure = clientDeparture(res);
  const feed = await events.openFeed(position);
  const closeFeed = () => feed.close();
  departure.addEventListener('abort', closeFeed, { once: true });
  const stopWatching = endEarly?.(closeFeed);
  let heartbeat: NodeJS.Timeout | undefined;
  try {
    if (departure.aborted) return;
    const session = await createSession(req, res, { keepAlive: null, retry: RECONNECT_HINT_MS, trustClientEventId: false });
    if (departure.aborted) return;
    heartbeat = setInterval(() => res.write(':\n\n'), HEARTBEAT_MS);
    for await (const row of feed) {
      const view = await events.view(row);
      if (departure.aborted) break;
      session.push(view, row.type, idOf(row));
    }
  } finally {
    clearInterval(heartbeat);
    stopWatching?.();
    departure.removeEventListener('abort', closeFeed);
    feed.close();
    res.end();
  }
}

export function jobEventsRouter(deps: ApiDeps, events: JobEventService): Router {
  const router = Router();
  const statusScope = requireApiKey(deps.keys, { credential: 'bearer', scope: 'check_status' });

  /** A key with `check_status`, or the job's signed events URL, which opens this job's events and nothing else. */
  const jobEventsAccess: RequestHandler = (req, res, next) => {
    const { token } = parseWith(JobEventsAccessQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    if (token === undefined) return statusScope(req, res, next);
    res.locals.eventsUrl = events.verifyEventsUrl(String(req.params.jobId), token);
    next();
  };

  /** A stream opened with an events URL lasts until its token expires, or until the URL would be refused. */
  const recheckMs = Math.max(deps.config.api.keyCacheTtlMs, MIN_EVENTS_URL_RECHECK_MS);
  const untilEventsUrlLapses = (eventsUrl: VerifiedEventsUrl, job: StreamableJob, requestId: unknown) => (end: () => void) =>
    endEventsUrlStream(
      {
        expiresAt: eventsUrl.expiresAt,
        recheckMs,
        stillAllowed: () => deps.keys.checkStanding(job.submittedBy),
        onCheckFailed: (err) => deps.logger.warn({ err, jobId: job.jobId, requestId }, 'could not re-check an events URL stream; it stays open until the next check'),
      },
      end,
    );

  const positionOf = (req: Request) => {
    const query = parseWith(JobEventsQuerySchema, req.query, 'VALIDATION_ERROR', 'query');
    const header = req.get('last-event-id');
    const lastEventId = header === undefined ? undefined : parseWith(LastEventIdSchema, header.trim(), 'VALIDATION_ERROR', 'Last-Event-ID');
    return { given: startPosition(lastEventId, query.since), limit: query.limit };
  };

  router.get('/v1/jobs/events', statusScope, async (req, res) => {
    const { given, limit } = positionOf(req);
    const accountId = getAuth(res).account.id;
    if (!wantsStream(req)) {
      res.json(await events.accountPage(accountId, given ?? 0n, limit));
      return;
    }
    deps.openStreams.holdUntil(clientDeparture(res), accountId, 'events');
    // Without a position the account stream starts now: an account's whole history is for the JSON pages.
    const position = { accountId, afterAccountSequence: given ?? ('live' as const) };
    await streamFeed(req, res, events, position, (row) => row.accountSequence.toString());
  });

  router.get('/v1/jobs/:jobId/events', jobEventsAccess, async (req, res) => {
    const { given, limit } = positionOf(req);
    const after = given ?? 0n;
    const eventsUrl = res.locals.eventsUrl as VerifiedEventsUrl | undefined;
    const accountId = eventsUrl?.accountId ?? getAuth(res).account.id;
    const jobId = String(req.params.jobId);
    const stream = wantsStream(req);
    if (stream && eventsUrl) deps.openStreams.holdForEventsUrlUntil(clientDeparture(res), jobId);
    else if (stream) deps.openStreams.holdUntil(clientDeparture(res), accountId, 'events');
    const job = await events.findJob(accountId, jobId);
    // The URL stands in for the key that submitted the job: refused whenever that key would be.
    if (eventsUrl) await deps.keys.checkStanding(job.submittedBy);
    if (!stream) {
      res.json(await events.jobPage(job.jobId, after, limit));
      return;
    }
    const afterSequence = jobSequenceAfter(after);
    if (job.finishedFor(afterSequence)) {
      res.status(204).end();
      return;
    }
    const endEarly = eventsUrl && untilEventsUrlLapses(eventsUrl, job, res.locals.requestId);
    await streamFeed(req, res, events, { accountId, jobId: job.jobId, afterSequence }, (row) => String(row.sequence), endEarly);
  });

  return router;
}
