/**
 * Replicate's `Cancel-After` header: the prediction's deadline as a duration from its creation, written as Replicate
 * takes it (https://replicate.com/changelog/2025-10-16-prediction-deadlines): `1m`, `30s`, `1h30m`, `1.5s`, `500ms`,
 * or a bare number of seconds. It becomes the job's `cancelAfter`, which counts whole seconds.
 */
import { DomainError } from '../../shared/errors';
import { MAX_DEADLINE_SECONDS } from '../../shared/deadlines';

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
const DURATION = /^(?:\d+(?:\.\d+)?(?:ms|s|m|h))+$/;

/** The header's seconds, rounded up to a whole second; undefined without the header. */
export function cancelAfterSeconds(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  let seconds: number | undefined;
  if (/^\d+(?:\.\d+)?$/.test(value)) seconds = Number(value);
  else if (DURATION.test(value)) seconds = [...value.matchAll(PART)].reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_SECONDS[unit!]!, 0);
  if (seconds === undefined || seconds <= 0 || seconds > MAX_DEADLINE_SECONDS) {
    const message = `Cancel-After must be a duration such as 30s, 5m or 1h30m, more than 0 and at most ${MAX_DEADLINE_SECONDS / 3600} h`;
    throw new DomainError('VALIDATION_ERROR', message, [{ path: 'Cancel-After', message }]);
  }
  return Math.ceil(seconds);
}
