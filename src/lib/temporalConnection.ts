/**
 * A Temporal client connection that closes cleanly. Temporal's gRPC retry interceptor schedules each retry on a timer
 * that `Connection.close()` does not clear; a retry whose timer fires after the close makes its call on the closed
 * channel, which throws from the timer, outside any caller, and ends the process. A connection made here retries as
 * Temporal's default does, and `closeTemporalConnection` first stops new retries, then waits for the timers already
 * set (at most Temporal's longest backoff, 5 s) before closing the channel.
 */
import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor, type ConnectionOptions } from '@temporalio/client';

type Options = Omit<ConnectionOptions, 'interceptors'>;

function drainingRetries(options: Options): { options: ConnectionOptions; drained(): Promise<void> } {
  const defaults = defaultGrpcRetryOptions();
  let closing = false;
  let lastRetryAt = 0;
  const interceptor = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const delay = defaults.delayFunction(attempt, status);
      lastRetryAt = Math.max(lastRetryAt, Date.now() + delay);
      return delay;
    },
  });
  return {
    options: { ...options, interceptors: [interceptor] },
    async drained() {
      closing = true;
      const wait = lastRetryAt - Date.now();
      // The retry's own call then runs on the open channel, and is not retried again.
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait + 50));
    },
  };
}

/** The pending-retry drain of each connection made here. */
const drains = new WeakMap<object, () => Promise<void>>();

/** `Connection.lazy`, to be closed with `closeTemporalConnection`. */
export function lazyTemporalConnection(options: Options): Connection {
  const retries = drainingRetries(options);
  const connection = Connection.lazy(retries.options);
  drains.set(connection, retries.drained);
  return connection;
}

/** `Connection.connect`, to be closed with `closeTemporalConnection`. */
export async function connectTemporal(options: Options): Promise<Connection> {
  const retries = drainingRetries(options);
  const connection = await Connection.connect(retries.options);
  drains.set(connection, retries.drained);
  return connection;
}

/** Closes the connection once the retries it has pending have run (at once for a connection made elsewhere). */
export async function closeTemporalConnection(connection: { close(): Promise<void> }): Promise<void> {
  await drains.get(connection)?.();
  await connection.close();
}
