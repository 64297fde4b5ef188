import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { GenmediaConnectionError, GenmediaError } from './errors';
import { backoffMs, sleep } from './retry';
import { isBatchFinal, isTerminal, type Batch, type JobEvent } from './types';

export interface FollowOptions {
  /** Only events after this position (the `sequence` of the last event seen). */
  since?: string | number;
  signal?: AbortSignal;
  /** How long to keep reconnecting while the API cannot be reached; the clock restarts with every event. */
  reconnectTimeoutMs?: number;
}

export const DEFAULT_RECONNECT_TIMEOUT_MS = 5 * 60_000;

/** The API sends a heartbeat every 15 s: a stream silent for three of them is dead, even if the socket looks open. */
const IDLE_TIMEOUT_MS = 45_000;

/** Opens the event stream after `lastEventId`; null when the job (or batch) is finished and nothing is left (204). */
export type OpenEventStream = (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<Response | null>;

/** What a stream carries: how to read one event, its position when the message has no id, and whether it is the last. */
interface StreamShape<T> {
  fallbackId(item: T): string | undefined;
  isLast(item: T): boolean;
}

const jobEvents: StreamShape<JobEvent> = { fallbackId: (event) => String(event.sequence), isLast: (event) => isTerminal(event.status) };
const batchProgress: StreamShape<Batch> = { fallbackId: () => undefined, isLast: (batch) => isBatchFinal(batch.status) };

/**
 * A job's events, in order and each once: what happened after `since`, then live events until the terminal one. A
 * dropped connection or an API restart is bridged by reconnecting with `Last-Event-ID`, so nothing is missed.
 */
export function followEvents(open: OpenEventStream, options: FollowOptions = {}): AsyncGenerator<JobEvent, void, undefined> {
  return follow(open, jobEvents, options);
}

/**
 * A batch's progress: the batch now, then again whenever its counts, cost or status change, until it is final. A
 * dropped connection is bridged by reconnecting with `Last-Event-ID` (`since`: the id of the last event seen), which
 * sends the batch again only if it changed meanwhile.
 */
export function followBatch(open: OpenEventStream, options: FollowOptions = {}): AsyncGenerator<Batch, void, undefined> {
  return follow(open, batchProgress, options);
}

async function* follow<T>(open: OpenEventStream, shape: StreamShape<T>, options: FollowOptions): AsyncGenerator<T, void, undefined> {
  const { signal } = options;
  const reconnectTimeoutMs = options.reconnectTimeoutMs ?? DEFAULT_RECONNECT_TIMEOUT_MS;
  let lastEventId = options.since === undefined ? undefined : String(options.since);
  let failingSince: number | undefined;
  let attempt = 0;
  let serverRetryMs: number | undefined;

  while (true) {
    let failure: unknown;
    const connection = new IdleWatchdog(IDLE_TIMEOUT_MS, signal);
    try {
      const response = await open(lastEventId, connection.signal);
      if (response === null) return;
      for await (const message of sseMessages(response, connection, (ms) => (serverRetryMs = ms))) {
        const item = JSON.parse(message.data) as T;
        lastEventId = message.id ?? shape.fallbackId(item);
        failingSince = undefined;
        attempt = 0;
        yield item;
        if (shape.isLast(item)) return;
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      // An answer that is not a retryable 5xx or 429 (404, 401, ...) will not change by asking again.
      if (err instanceof GenmediaError && !(err instanceof GenmediaConnectionError) && !isTransient(err)) throw err;
      failure = err;
    } finally {
      connection.close();
    }
    // The stream ended before the last event, or failed: reconnect after the last event seen.
    failingSince ??= Date.now();
    if (Date.now() - failingSince > reconnectTimeoutMs) {
      throw failure instanceof GenmediaError ? failure : new GenmediaConnectionError(failure ?? new Error('event stream closed'));
    }
    await sleep(Math.max(serverRetryMs ?? 0, backoffMs(attempt++)), signal);
  }
}

function isTransient(err: GenmediaError): boolean {
  return err.status === 429 || (err.status !== undefined && err.status >= 500);
}

interface SseMessage {
  id: string | undefined;
  data: string;
}

/** Aborts one connection when nothing (not even a heartbeat) arrived for `idleMs`, or when `outer` aborts. */
class IdleWatchdog {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  readonly signal: AbortSignal;

  constructor(
    private readonly idleMs: number,
    outer: AbortSignal | undefined,
  ) {
    this.signal = outer ? AbortSignal.any([outer, this.controller.signal]) : this.controller.signal;
    this.alive();
  }

  alive(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new Error(`no data for ${this.idleMs / 1000} s`)), this.idleMs);
  }

  close(): void {
    clearTimeout(this.timer);
  }
}

/** The messages of a `text/event-stream` body, parsed by eventsource-parser. */
async function* sseMessages(response: Response, watchdog: IdleWatchdog, onRetry: (ms: number) => void): AsyncGenerator<SseMessage> {
  if (!response.body) return;
  const parsed: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => parsed.push(message), onRetry, onComment: () => watchdog.alive() });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) return;
      watchdog.alive();
      parser.feed(decoder.decode(value, { stream: true }));
      while (parsed.length > 0) {
        const message = parsed.shift()!;
        yield { id: message.id, data: message.data };
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
