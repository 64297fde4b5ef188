import { describe, expect, it } from 'vitest';
import { createDeliveryThrottle } from '../../../../src/outputs/delivery/throttle';

function throttle() {
  let now = 1_000_000;
  const t = createDeliveryThrottle({ maxPerAccount: 2, firstBackoffSeconds: 5, maxBackoffSeconds: 60, now: () => now });
  return { t, advance: (seconds: number) => void (now += seconds * 1000) };
}

describe('the delivery throttle', () => {
  it("runs at most maxPerAccount of one account's attempts at once, and another account's beside them", () => {
    const { t } = throttle();
    const first = t.take('a', { final: false });
    const second = t.take('a', { final: false });
    expect([first.ok, second.ok]).toEqual([true, true]);
    expect(t.take('a', { final: false })).toMatchObject({ ok: false, waitSeconds: 5, reason: expect.stringMatching(/2 of the account's deliveries/) });
    expect(t.take('b', { final: false }).ok).toBe(true);
    if (first.ok) first.release('delivered');
    expect(t.take('a', { final: false }).ok).toBe(true);
  });

  it("backs the account off after a failure, once per window, doubling, until a delivery; a final attempt goes anyway", () => {
    const { t, advance } = throttle();
    const turns = [t.take('a', { final: false }), t.take('a', { final: false })];
    for (const turn of turns) if (turn.ok) turn.release('failed');
    // Two failures in one window count once: the first backoff.
    expect(t.take('a', { final: false })).toMatchObject({ ok: false, waitSeconds: 5 });
    expect(t.take('b', { final: false }).ok).toBe(true);
    expect(t.take('a', { final: true }).ok).toBe(true);
    advance(5);
    const again = t.take('a', { final: false });
    expect(again.ok).toBe(true);
    if (again.ok) again.release('failed');
    expect(t.take('a', { final: false })).toMatchObject({ ok: false, waitSeconds: 10 });
    advance(10);
    const delivered = t.take('a', { final: false });
    if (delivered.ok) delivered.release('delivered');
    expect(t.take('a', { final: false }).ok).toBe(true);
  });
});
