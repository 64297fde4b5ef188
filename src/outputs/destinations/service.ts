/**
 * Configuring an account's destination: the probe counted against the account's hourly limit, the endpoint through the
 * address guard, then the probe on a connection pinned to the checked address; saved (and audited) only when the
 * probe passed. The secret goes nowhere but the probe's client and the sealed column: it is in no answer, error
 * message, audit entry or log line.
 */
import type { Actor } from '../../audit/log';
import type { DestinationView } from '../../contracts/http/destination';
import type { Clock } from '../../lib/clock';
import { DomainError } from '../../shared/errors';
import { openGuardedS3, type GuardOptions } from './guardedS3';
import { probeDestination, type ProbeResult } from './probe';
import type { ProbeLimiter } from './probeLimit';
import type { DestinationSettings } from './settings';
import type { DestinationStore, StoredDestination } from './store';

export interface DestinationService {
  get(accountId: string): Promise<DestinationView | null>;
  /**
   * Probes, then saves (replacing any earlier destination) and audits the change by `actor`; throws DomainError with the
   * probe's code when it fails, DESTINATION_PROBE_LIMIT_EXCEEDED when the account's probes of the hour are spent.
   */
  configure(accountId: string, settings: DestinationSettings, actor: Actor): Promise<DestinationView>;
  /** Whether there was one to remove; a removal is audited. */
  remove(accountId: string, actor: Actor): Promise<boolean>;
}

export interface DestinationServiceDeps {
  store: DestinationStore;
  guard: GuardOptions;
  probeTimeoutMs: number;
  /** Probes per account and hour. */
  probes: ProbeLimiter;
  clock: Clock;
  /** False when this deployment has no DESTINATION_SECRET_KEY (outside production only). */
  canSeal: boolean;
}

export function viewOf(stored: StoredDestination): DestinationView {
  const { endpoint, region, bucket, prefix, accessKeyId, configuredAt } = stored;
  return { endpoint, region, bucket, prefix, accessKeyId, secretSet: true, configuredAt: configuredAt.toISOString() };
}

export function createDestinationService(deps: DestinationServiceDeps): DestinationService {
  return {
    async get(accountId) {
      const stored = await deps.store.find(accountId);
      return stored ? viewOf(stored) : null;
    },
    async configure(accountId, settings, actor) {
      if (!deps.canSeal) {
        throw new DomainError('SERVICE_UNAVAILABLE', 'Destinations cannot be configured on this deployment: DESTINATION_SECRET_KEY is not set');
      }
      // Counted before the endpoint is resolved: a refused or failing endpoint costs a probe like a good one.
      await deps.probes.take(accountId);
      const result = await probe(settings, deps);
      if (!result.ok) {
        throw new DomainError(result.problem, `The destination was not saved: ${result.reason}`, {
          operation: result.operation,
          ...(result.s3Code ? { s3Code: result.s3Code } : {}),
        });
      }
      return viewOf(await deps.store.save(accountId, settings, new Date(deps.clock.now()), actor));
    },
    remove: (accountId, actor) => deps.store.remove(accountId, actor),
  };
}

/** The guard's check and the probe, together within probeTimeoutMs: a host whose DNS never answers counts as unreachable too. */
async function probe(settings: DestinationSettings, deps: DestinationServiceDeps): Promise<ProbeResult> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const deadline = new Promise<ProbeResult>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve({ ok: false, problem: 'DESTINATION_UNREACHABLE', operation: 'write', reason: `the endpoint did not answer within ${deps.probeTimeoutMs} ms` });
    }, deps.probeTimeoutMs);
  });
  let close: (() => void) | undefined;
  const checkedAndProbed = async (): Promise<ProbeResult> => {
    const opened = await openGuardedS3(settings, deps.guard);
    if (!opened.ok) {
      if (opened.kind === 'blocked_address') throw new DomainError('DESTINATION_ADDRESS_REFUSED', `The destination was not saved: ${opened.reason}`);
      if (opened.kind === 'unresolvable') return { ok: false, problem: 'DESTINATION_UNREACHABLE', operation: 'write', reason: opened.reason };
      throw new DomainError('VALIDATION_ERROR', `Invalid request: endpoint: ${opened.reason}`, [{ path: 'endpoint', message: opened.reason }]);
    }
    // A check that answered after the deadline probes nothing.
    if (timedOut) {
      opened.close();
      return { ok: false, problem: 'DESTINATION_UNREACHABLE', operation: 'write', reason: 'too late' };
    }
    close = opened.close;
    return probeDestination(opened.client, settings.bucket, settings.prefix);
  };
  try {
    return await Promise.race([checkedAndProbed(), deadline]);
  } finally {
    clearTimeout(timer);
    // Ends any request still waiting past the deadline.
    close?.();
  }
}
