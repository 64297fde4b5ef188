import { describe, expect, it } from 'vitest';
import { createAdmissionGate } from '../../../src/jobs/admissionGate';
import { DomainError } from '../../../src/shared/errors';

function gate(maxInFlight = 4, random = () => 0) {
  let now = 1_000_000;
  const admissions = createAdmissionGate({ maxInFlight, timeoutMs: 20_000, minTimeoutMs: 5_000, clock: () => now, random });
  return { admissions, advance: (ms: number) => (now += ms) };
}

function failAdmissions(admissions: ReturnType<typeof gate>['admissions'], advance: (ms: number) => number, count = 4) {
  for (let i = 0; i < count; i++) {
    const ticket = admissions.enter();
    advance(2_000);
    ticket.done('unknown');
  }
}

function shedding(enter: () => unknown): DomainError {
  try {
    enter();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected the submit to be shed');
}

describe('admission gate', () => {
  it('waits as long as admissions now take: twice the slowest admitted lately, between the minimum and the full deadline', () => {
    const { admissions, advance } = gate();
    for (let i = 0; i < 5; i++) {
      const ticket = admissions.enter();
      expect(ticket.timeoutMs).toBe(i === 0 ? 20_000 : 5_000);
      advance(20);
      ticket.done('admitted');
    }
    const slow = admissions.enter();
    advance(7_000);
    slow.done('admitted');
    expect(admissions.enter().timeoutMs).toBe(14_000);
    const slower = admissions.enter();
    advance(12_000);
    slower.done('admitted');
    expect(admissions.enter().timeoutMs).toBe(20_000);
    advance(10_001);
    const quick = admissions.enter();
    advance(20);
    quick.done('admitted');
    expect(admissions.enter().timeoutMs).toBe(5_000);
  });

  it('gives the full deadline while no admission ended lately: an idle service, or a workflow worker just started', () => {
    const { admissions, advance } = gate(100);
    expect(admissions.enter().timeoutMs).toBe(20_000);
    const ticket = admissions.enter();
    advance(30);
    ticket.done('admitted');
    expect(admissions.enter().timeoutMs).toBe(5_000);
    advance(10_001);
    expect(admissions.enter().timeoutMs).toBe(20_000);
  });

  it('sheds at once past its admissions in flight, with Retry-After', () => {
    const { admissions } = gate(4);
    const tickets = [admissions.enter(), admissions.enter(), admissions.enter()];
    expect(admissions.enter().timeoutMs).toBe(20_000);
    const shed = shedding(() => admissions.enter());
    expect(shed).toMatchObject({ code: 'PUBSUB_PUBLISH_FAILED', hint: { retryAfterSeconds: 1 }, details: { reason: 'crowded' } });
    tickets[0].done('admitted');
    expect(() => admissions.enter()).not.toThrow();
  });

  it('opens when most recent admissions end unknown, lets one probe through a second, and closes on an admitted probe', () => {
    const { admissions, advance } = gate(100);
    failAdmissions(admissions, advance);
    const probe = admissions.enter();
    expect(probe.timeoutMs).toBe(5_000);
    expect(admissions.state().open).toBe(true);
    // Failing for 8 s (since the first admission that failed began): half of it.
    expect(shedding(() => admissions.enter())).toMatchObject({ hint: { retryAfterSeconds: 4 }, details: { reason: 'failing' } });
    advance(1_500);
    // Still one probe at a time, however long it takes.
    expect(shedding(() => admissions.enter()).details).toMatchObject({ reason: 'failing' });
    probe.done('unknown');
    // The probe interval has passed: the next submit probes, and the one after it waits for that probe.
    const second = admissions.enter();
    expect(shedding(() => admissions.enter()).details).toMatchObject({ reason: 'failing' });
    advance(100);
    second.done('admitted');
    expect(admissions.state().open).toBe(false);
    expect(() => admissions.enter()).not.toThrow();
  });

  it('asks clients to wait longer the longer admissions keep failing, within 2-20 s, with jitter', () => {
    const { admissions, advance } = gate(100);
    failAdmissions(admissions, advance);
    const retryAfter = () => Number(shedding(() => admissions.enter()).hint.retryAfterSeconds);
    admissions.enter().done('unknown');
    // The trouble began with the first admission that failed, 8 s ago.
    expect(retryAfter()).toBe(4);
    expect(admissions.retryAfterSeconds()).toBe(4);
    for (const [seconds, expected] of [
      [10, 9],
      [20, 19],
      [60, 20],
    ]) {
      advance(seconds * 1_000 - 1);
      const probe = admissions.enter();
      probe.done('unknown');
      expect(retryAfter()).toBe(expected);
    }
    const jittered = gate(100, () => 0.99);
    failAdmissions(jittered.admissions, jittered.advance);
    jittered.admissions.enter();
    jittered.advance(4_000);
    // 12 s of trouble: 6 s, and up to half again.
    expect(Number(shedding(() => jittered.admissions.enter()).hint.retryAfterSeconds)).toBe(9);
  });

  it('forgets failures older than its window, and learns nothing from abandoned tickets', () => {
    const { admissions, advance } = gate(100);
    for (let i = 0; i < 4; i++) admissions.enter().done('unknown');
    advance(11_000);
    expect(admissions.enter().timeoutMs).toBe(20_000);
    expect(admissions.retryAfterSeconds()).toBe(1);
    const abandoned = admissions.enter();
    abandoned.abandon();
    abandoned.done('unknown');
    expect(admissions.state()).toMatchObject({ open: false });
  });
});
