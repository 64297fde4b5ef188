/**
 * livenessOf on recorded pollers and heartbeats: a live worker that is idle shows a poll up to a minute old, a worker
 * that stopped says so in its last heartbeat, and a worker that was killed is gone once its last poll is stale.
 */
import { describe, expect, it } from 'vitest';
import { HEARTBEAT_STALE_MS, livenessOf, POLL_STALE_MS, type HeartbeatSeen, type PollerSeen } from '../../../src/temporal/workerLiveness';

const NOW = 1_800_000_000_000;
const poll = (identity: string, buildId: string | undefined, agoMs: number): PollerSeen => ({ identity, buildId, lastAccessMs: NOW - agoMs });
const beat = (identity: string, buildId: string | undefined, running: boolean, agoMs: number): HeartbeatSeen => ({ identity, buildId, running, heartbeatMs: NOW - agoMs });

describe('livenessOf', () => {
  it('counts an idle worker whose long poll began most of a minute ago', () => {
    expect(livenessOf('b1', [poll('1@host', 'b1', 58_000)], [], NOW)).toEqual({ live: true, lastSeenMs: NOW - 58_000 });
  });

  it('counts a killed worker gone once its last poll is older than a long poll', () => {
    expect(livenessOf('b1', [poll('1@host', 'b1', POLL_STALE_MS + 1)], [], NOW).live).toBe(false);
  });

  it('counts a worker gone at once when its heartbeat after its last poll says it is shutting down', () => {
    const liveness = livenessOf('b1', [poll('1@host', 'b1', 5_000)], [beat('1@host', 'b1', false, 1_000)], NOW);
    expect(liveness).toEqual({ live: false, lastSeenMs: NOW - 1_000 });
  });

  it('counts a worker that polled after an earlier shutdown of the same identity (a restarted container)', () => {
    expect(livenessOf('b1', [poll('1@pod', 'b1', 2_000)], [beat('1@pod', 'b1', false, 30_000)], NOW).live).toBe(true);
  });

  it('counts a worker whose RUNNING heartbeat is recent, and not one whose heartbeats stopped', () => {
    expect(livenessOf('b1', [], [beat('1@host', 'b1', true, 10_000)], NOW).live).toBe(true);
    expect(livenessOf('b1', [], [beat('1@host', 'b1', true, HEARTBEAT_STALE_MS + 1)], NOW).live).toBe(false);
  });

  it("looks only at the build asked for, unversioned workers being a build of their own", () => {
    const pollers = [poll('1@host', 'b2', 1_000), poll('2@host', undefined, 1_000)];
    expect(livenessOf('b1', pollers, [], NOW)).toEqual({ live: false, lastSeenMs: undefined });
    expect(livenessOf(undefined, pollers, [], NOW).live).toBe(true);
  });
});
