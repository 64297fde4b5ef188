import { trace, type Context } from '@opentelemetry/api';

const INVALID_TRACE_ID = '00000000000000000000000000000000';

/** The id of the trace the caller runs in (or `context`'s), or undefined when there is none (tracing off). */
export function currentTraceId(context?: Context): string | undefined {
  const span = context ? trace.getSpan(context) : trace.getActiveSpan();
  const id = span?.spanContext().traceId;
  return id && id !== INVALID_TRACE_ID ? id : undefined;
}
