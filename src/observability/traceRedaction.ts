/**
 * File ids, query credentials (an events URL's token, a Cog webhook's secret, a presigned URL's signature) and object
 * keys never leave in a span, as they never reach the request log: the HTTP and fetch instrumentations record paths,
 * queries and URLs (`/v1/files/<fileId>`, `url.query`, `url.full`, MinIO's `/<bucket>/<key>`), a failure's message
 * can name an input file's URL. Each span is redacted as it ends, before any exporter sees it.
 */
import type { Attributes, AttributeValue, SpanStatus } from '@opentelemetry/api';
import type { Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { redactCredentials, redactFileIds, redactObjectKeys } from './redaction';

/** The parts of a span that carry text, as the SDK's spans and the workflow sandbox's serialized spans both have them. */
export interface RedactableSpan {
  name: string;
  attributes: Attributes;
  events: TimedEvent[];
  status: SpanStatus;
}

/** Storage buckets whose object paths are redacted (the uploads and outputs buckets). */
export type Buckets = readonly string[];

function redactText(text: string, buckets: Buckets): string {
  return redactObjectKeys(redactCredentials(redactFileIds(text)), buckets);
}

function redactValue(value: AttributeValue | undefined, buckets: Buckets): AttributeValue | undefined {
  if (typeof value === 'string') return redactText(value, buckets);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactText(v, buckets) : v)) as AttributeValue;
  return value;
}

function redactAttributes(attributes: Attributes, buckets: Buckets): void {
  for (const [key, value] of Object.entries(attributes)) attributes[key] = redactValue(value, buckets);
}

function isStoragePath(path: string, buckets: Buckets): boolean {
  return buckets.some((bucket) => path === `/${bucket}` || path.startsWith(`/${bucket}/`));
}

/** Redacts `span` in place: its name, attributes, event attributes (exception messages) and status message. */
export function redactSpan(span: RedactableSpan, buckets: Buckets): void {
  span.name = redactText(span.name, buckets);
  redactAttributes(span.attributes, buckets);
  // A fetch records the query apart from the path: a listing's `prefix` is part of a key.
  const path = span.attributes['url.path'];
  if (typeof path === 'string' && span.attributes['url.query'] !== undefined && isStoragePath(path, buckets)) {
    span.attributes['url.query'] = ':query';
  }
  for (const event of span.events) if (event.attributes) redactAttributes(event.attributes, buckets);
  if (span.status.message !== undefined) span.status = { ...span.status, message: redactText(span.status.message, buckets) };
}

/** A processor that only redacts, in `onEnding` (the span is still writable); it goes before the exporting one. */
export function redactingSpanProcessor(buckets: Buckets): SpanProcessor {
  return {
    onStart: () => undefined,
    onEnding: (span: Span) => redactSpan(span, buckets),
    onEnd: () => undefined,
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
}
