import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { endEventsUrlStream } from '../../../src/api/eventsUrlStreamWatch';
import { ApiError } from '../../../src/api/apiError';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});

afterEach(() => {
  vi.useRealTimers();
});

function watch(expiresAtMs: number, stillAllowed: () => Promise<void>) {
  const failures: unknown[] = [];
  return {
    failures,
    options: { expiresAt: new Date(expiresAtMs), recheckMs: 2_000, stillAllowed, onCheckFailed: (err: unknown) => failures.push(err) },
  };
}

describe('endEventsUrlStream', () => {
  it('ends the stream at its token expiry, re-checking every recheckMs until then', async () => {
    const stillAllowed = vi.fn(async () => undefined);
    const end = vi.fn();
    endEventsUrlStream(watch(5_000, stillAllowed).options, end);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(stillAllowed).toHaveBeenCalledTimes(2);
    expect(end).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(end).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends the stream at the first re-check that refuses it', async () => {
    let refused = false;
    const end = vi.fn();
    endEventsUrlStream(watch(60_000, async () => {
      if (refused) throw new ApiError('ACCOUNT_SUSPENDED', 'suspended');
    }).options, end);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(end).not.toHaveBeenCalled();
    refused = true;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(end).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the stream through a re-check that could not be answered, and stops watching when told', async () => {
    const end = vi.fn();
    const { options, failures } = watch(60_000, async () => {
      throw new Error('database away');
    });
    const stop = endEventsUrlStream(options, end);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(failures).toHaveLength(2);
    expect(end).not.toHaveBeenCalled();
    stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
