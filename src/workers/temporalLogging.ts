import { DefaultLogger, Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { Logger } from '../logger';

let installed = false;

/** Routes the Temporal SDK's logs (worker, workflow `log`, activity `log`) into pino. Once per process. */
export function routeTemporalLogsTo(logger: Logger): void {
  if (installed) return;
  installed = true;
  const sdk = logger.child({ component: 'temporal' });
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace',
    DEBUG: 'debug',
    INFO: 'info',
    WARN: 'warn',
    ERROR: 'error',
  };
  const minimum = logger.level === 'trace' ? 'TRACE' : logger.level === 'debug' ? 'DEBUG' : 'INFO';
  try {
    Runtime.install({
      logger: new DefaultLogger(minimum, (entry) => {
        const meta: LogMetadata = entry.meta ?? {};
        sdk[levels[entry.level]](meta, entry.message);
      }),
      telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} } },
    });
  } catch {
    // A Runtime already exists in this process (e.g. a test environment created it first).
  }
}
