import pino, { type Logger } from 'pino';
import { currentTraceId } from './lib/traceContext';

export type { Logger } from 'pino';

let root: Logger | undefined;

/** The one structured logger; children carry a `component` field (and job/request ids where relevant). */
export function createLogger(component: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  root ??= pino({
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Lines written inside a traced request or activity carry its trace id (tracing on only).
    mixin: () => {
      const traceId = currentTraceId();
      return traceId ? { traceId } : {};
    },
  });
  return root.child({ component });
}
