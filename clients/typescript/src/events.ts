import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { GenmediaConnectionError, GenmediaError } from './errors';
import { backoffMs, sleep } from './retry';
import { isTerminal, type JobEvent } from './types';

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

/** Opens the event stream after `lastEventId`; null when the job is finished and nothing is left (204). */
export type OpenEventStream = (lastEventId: string | undefined, signal: AbortSignal | undefined) => Promise<Response | null>;

/**
 * A job's events, in order and each once: what happened after `since`, then live events until the terminal one. A
 * dropped connection or an API restart is bridged by reconnecting with `Last-Event-ID`, so nothing is missed.
 */
export async function* followEvents(open: OpenEventStream, options: FollowOptions = {}): AsyncGenerator<JobEvent, void, undefined> {
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
        const event = JSON.parse(message.data) as JobEvent;
        lastEventId = message.id ?? String(event.sequence);
        failingSince = undefined;
        attempt = 0;
        yield event;
        if (isTerminal(event.status)) return;
      }
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      // An answer that is not a retryable 5xx or 429 (404, 401, ...) will not change by asking again.
      if (err instanceof GenmediaError && !(err instanceof GenmediaConnectionError) && !isTransient(err)) throw err;
      failure = err;
    } finally {
      connection.close();
    }
    // The stream ended before the terminal event, or failed: reconnect after the last event seen.
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
