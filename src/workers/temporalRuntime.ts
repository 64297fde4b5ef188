import { DefaultLogger, Runtime, type LogLevel, type LogMetadata } from '@temporalio/worker';
import type { Logger } from '../logger';

let installed = false;

export interface TemporalRuntimeOptions {
  /** `host:port` where the SDK's own Prometheus exporter listens (worker, workflow and activity metrics). */
  sdkMetricsAddress?: string;
}

/**
 * Installs the Temporal SDK runtime once per process: its logs (worker, workflow `log`, activity `log`) go into pino,
 * and with `sdkMetricsAddress` its metrics are exported in Prometheus form, named by Prometheus conventions.
 * Returns false when a runtime already existed (a test environment created it first).
 */
export function installTemporalRuntime(logger: Logger, options: TemporalRuntimeOptions = {}): boolean {
  if (installed) return false;
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
      telemetryOptions: {
        logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} },
        ...(options.sdkMetricsAddress
          ? {
              metrics: {
                prometheus: { bindAddress: options.sdkMetricsAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true },
              },
            }
          : {}),
      },
    });
    return true;
  } catch {
    return false;
  }
}
