/**
 * `Retry-After` (RFC 9110 §10.2.3) as whole seconds from `now`: delay-seconds or an HTTP date.
 * Undefined when absent or unreadable. The one parser of this header in the code base.
 */
export function parseRetryAfter(value: string | null | undefined, now: number | Date = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text));
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  const nowMs = typeof now === 'number' ? now : now.getTime();
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
