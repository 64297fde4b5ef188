import { describe, expect, it } from 'vitest';
import { closeTemporalConnection, lazyTemporalConnection } from '../../../src/lib/temporalConnection';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a Temporal connection closed with closeTemporalConnection', () => {
  it('lets a retry already set run on the open channel before it closes, so no retry meets a closed one', async () => {
    // Nothing listens there: each attempt fails UNAVAILABLE, which Temporal's client retries after a backoff.
    const connection = lazyTemporalConnection({ address: '127.0.0.1:1' });
    const call = connection.workflowService.getSystemInfo({}).then(
      () => 'answered',
      (err: unknown) => err,
    );
    await sleep(300);
    await closeTemporalConnection(connection);
    // The call ended with its last attempt's failure, not retried again; an uncaught error would fail this file.
    expect(await call).toBeInstanceOf(Error);
    await sleep(300);
  });

  it('closes a connection made elsewhere too', async () => {
    let closed = false;
    await closeTemporalConnection({ close: async () => void (closed = true) });
    expect(closed).toBe(true);
  });
});
