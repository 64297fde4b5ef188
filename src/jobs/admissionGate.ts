/**
 * Load shedding before Update-with-Start. When Temporal is restarting or the workflow worker is behind, an admission
 * can only wait out its deadline and answer 503, and the workflow it started adds to the very backlog that made it
 * late; the client's retries then keep that backlog up. So each API process watches its own admissions and, while
 * they fail or pile up, answers new submits at once with 503 and Retry-After instead of adding to the pile:
 *
 * - at most `maxInFlight` admissions wait on Temporal at once;
 * - when most of the recent admissions ended unknown (deadline passed, Temporal unreachable), the gate opens: submits
 *   are shed, one probe at a time is let through, and the first admitted probe closes it again;
 * - an admission waits as long as admissions now take: twice the slowest admitted in the last 10 s, at least
 *   `minTimeoutMs` and at most `timeoutMs`, and `timeoutMs` when none ended in that time. A healthy service
 *   (admissions in milliseconds) answers a sudden stall within `minTimeoutMs`; a worker that is behind but admitting,
 *   or one just started, gets the patience it needs, since an admission given up on still leaves its workflow for
 *   the worker to run.
 *
 * Nothing is charged for a shed submit: it never reaches the workflow.
 */
import type { AdmissionOutcome } from './submissionMetrics';
import { DomainError } from '../shared/errors';

export interface AdmissionGateOptions {
  maxInFlight: number;
  /** The longest an admission may wait. */
  timeoutMs: number;
  /** The shortest: what an admission waits while admissions take milliseconds. */
  minTimeoutMs: number;
  clock?: () => number;
  /** For the Retry-After jitter; [0, 1). */
  random?: () => number;
}

export interface AdmissionTicket {
  /** How long this admission may wait on Temporal. */
  timeoutMs: number;
  /** Reports how the admission ended; once. */
  done(outcome: AdmissionOutcome): void;
  /** The submit ended before its admission was tried (a rate limit, say): nothing is learnt from it. */
  abandon(): void;
}

export interface AdmissionGate {
  /** A ticket to try an admission now, or 503 PUBSUB_PUBLISH_FAILED with Retry-After when shedding. */
  enter(): AdmissionTicket;
  /** For tests and metrics: whether submits are being shed for failing admissions. */
  state(): { inFlight: number; open: boolean };
  /** The Retry-After for a submit whose admission was given up on: longer the longer admissions have been failing. */
  retryAfterSeconds(): number;
}

/** How far back the recent outcomes reach. */
const WINDOW_MS = 10_000;
/** Fewer recent outcomes than this say nothing about health. */
const MIN_SAMPLES = 4;
const FAILING_SHARE = 0.5;
/** While open, one probe at most this often. */
const PROBE_INTERVAL_MS = 1_000;
/**
 * Retry-After while failing grows with the trouble: half of how long admissions have been failing, 2 to 20 s (below
 * the SDK's 30 s ceiling), with up to half again of jitter so the clients do not come back together. A short
 * failure costs a client a couple of seconds; a long one (a workflow worker restarting several times) is waited out
 * within a dozen retries instead of exhausting them.
 */
const FAILING_RETRY_AFTER = { minSeconds: 2, maxSeconds: 20 };
const CROWDED_RETRY_AFTER_SECONDS = 1;

interface Recent {
  at: number;
  outcome: AdmissionOutcome;
  tookMs: number;
}

export function createAdmissionGate(options: AdmissionGateOptions): AdmissionGate {
  const clock = options.clock ?? Date.now;
  const random = options.random ?? Math.random;
  const recent: Recent[] = [];
  let inFlight = 0;
  let open = false;
  /** When the admissions failing now began to fail; kept across a probe that closed the gate only for a moment. */
  let troubleSince = 0;
  let closedAt = Number.NEGATIVE_INFINITY;
  let probing = false;
  let lastProbeAt = 0;

  const forget = (now: number) => {
    while (recent.length > 0 && recent[0].at < now - WINDOW_MS) recent.shift();
  };

  const failing = () => recent.length >= MIN_SAMPLES && recent.filter((r) => r.outcome === 'unknown').length / recent.length >= FAILING_SHARE;
  const troubled = () => open || recent.some((r) => r.outcome === 'unknown');
  const deadline = () => {
    // Nothing ended lately (an idle service, a worker just started): no evidence that admissions are quick, so the
    // first ones get the full patience rather than being voided while a cold worker warms up.
    if (recent.length === 0) return options.timeoutMs;
    const slowest = Math.max(0, ...recent.filter((r) => r.outcome !== 'unknown').map((r) => r.tookMs));
    return Math.min(options.timeoutMs, Math.max(options.minTimeoutMs, 2 * slowest));
  };

  function failingRetryAfter(now: number): number {
    const half = Math.ceil((now - troubleSince) / 2_000);
    const base = Math.min(FAILING_RETRY_AFTER.maxSeconds, Math.max(FAILING_RETRY_AFTER.minSeconds, half));
    return Math.min(FAILING_RETRY_AFTER.maxSeconds, base + Math.floor(random() * (base / 2 + 1)));
  }

  function shed(reason: 'crowded' | 'failing', now: number): never {
    const retryAfterSeconds = reason === 'crowded' ? CROWDED_RETRY_AFTER_SECONDS : failingRetryAfter(now);
    const why = reason === 'crowded' ? 'too many jobs are being queued at once' : 'job queueing is failing for the moment';
    throw new DomainError('PUBSUB_PUBLISH_FAILED', `The job could not be queued (${why}); nothing was charged. Retry the request.`, { reason, retryAfterSeconds }, {
      retryAfterSeconds: retryAfterSeconds,
    });
  }

  return {
    enter() {
      const now = clock();
      forget(now);
      if (!open && failing()) open = true;
      let probe = false;
      if (open) {
        if (probing || now - lastProbeAt < PROBE_INTERVAL_MS) shed('failing', now);
        probe = true;
        probing = true;
        lastProbeAt = now;
      } else if (inFlight >= options.maxInFlight) {
        shed('crowded', now);
      }
      const timeoutMs = deadline();
      inFlight += 1;
      const startedAt = now;
      let finished = false;
      const finish = () => {
        if (finished) return false;
        finished = true;
        inFlight -= 1;
        if (probe) probing = false;
        return true;
      };
      return {
        timeoutMs,
        abandon() {
          if (finish() && probe) lastProbeAt = 0;
        },
        done(outcome) {
          if (!finish()) return;
          const at = clock();
          if (outcome === 'unknown' && !troubled() && at - closedAt > WINDOW_MS) troubleSince = startedAt;
          recent.push({ at, outcome, tookMs: at - startedAt });
          // A probe that got through shows Temporal admits again; the failures before it no longer count.
          if (open && outcome !== 'unknown') {
            open = false;
            closedAt = at;
            recent.splice(0, recent.length - 1);
          }
        },
      };
    },
    state: () => ({ inFlight, open }),
    retryAfterSeconds() {
      const now = clock();
      forget(now);
      return troubled() ? failingRetryAfter(now) : CROWDED_RETRY_AFTER_SECONDS;
    },
  };
}

/** The gate of an API process, from jobs.admissionTimeoutMs, jobs.admissionMinTimeoutMs and jobs.admissionMaxInFlight. */
export function admissionGateFor(config: { jobs: { admissionTimeoutMs: number; admissionMinTimeoutMs: number; admissionMaxInFlight: number } }): AdmissionGate {
  return createAdmissionGate({
    maxInFlight: config.jobs.admissionMaxInFlight,
    timeoutMs: config.jobs.admissionTimeoutMs,
    minTimeoutMs: config.jobs.admissionMinTimeoutMs,
  });
}
