/** What an audit entry changed, field by field, from its `before` and `after` snapshots. */
import { formatDollars } from '@genmedia/client';
import { formatTime } from '../format';

export interface FieldChange {
  field: string;
  before: string;
  after: string;
  /** The values are identifiers (ids, key prefixes), shown as code. */
  identifier: boolean;
}

const IDENTIFIER = /(Id|^prefix|^replacedBy)$/;

/** Leaves of a snapshot by dotted path (`spendLimits.dailyMicroCents`); arrays are leaves. */
function leaves(value: unknown, prefix = '', into = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value)) leaves(child, prefix ? `${prefix}.${key}` : key, into);
  } else if (prefix) {
    into.set(prefix, value);
  }
  return into;
}

const ABSENT = '—';

export function describeValue(field: string, value: unknown): string {
  if (value === undefined) return ABSENT;
  if (value === null) return 'none';
  if (typeof value === 'number' && /MicroCents$/.test(field)) return formatDollars(value);
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return formatTime(value);
  if (Array.isArray(value)) return value.length === 0 ? '[]' : value.map(String).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The fields whose value differs between the snapshots (every field of a creation), in a stable order. */
export function auditChanges(before: unknown, after: unknown): FieldChange[] {
  const was = leaves(before);
  const now = leaves(after);
  const fields = [...new Set([...was.keys(), ...now.keys()])];
  return fields
    .filter((field) => JSON.stringify(was.get(field)) !== JSON.stringify(now.get(field)))
    .map((field) => ({
      field,
      before: describeValue(field, was.get(field)),
      after: describeValue(field, now.get(field)),
      identifier: IDENTIFIER.test(field.split('.').pop()!),
    }));
}
