/**
 * OpenTelemetry tracing: one trace per submit, from the HTTP request through Update-with-Start, the job workflow and
 * its activities to the provider and the webhook delivery. Off unless an OTLP endpoint (or the console exporter) is
 * configured; when off nothing is installed or even loaded.
 *
 * Call `startTracing` before Express, pg or undici are loaded: the instrumentations patch them as they load.
 */
import type { Config } from '../config';
import { TRACING_OFF, type Tracing } from './tracingHandle';

export { TRACING_OFF, type Tracing } from './tracingHandle';

/** The workflow-side interceptors, bundled with the workflows when tracing is on. */
export const WORKFLOW_TRACING_MODULES = [require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors')];

let active: Tracing | undefined;

/** Installs tracing for this process as `config` says, once (later calls return the first). */
export function startTracing(config: Pick<Config, 'observability' | 'minio'>, serviceName: string): Tracing {
  if (active) return active;
  if (config.observability.traces === 'off') return TRACING_OFF;
  // Loaded here, not imported above: a process with tracing off never loads the SDK.
  const sdk = require('./tracingSdk') as typeof import('./tracingSdk');
  active = sdk.installTracing(config, serviceName) ?? TRACING_OFF;
  return active;
}

/** Makes `tracing` the process's own, as if `startTracing` had installed it (tests with an in-memory exporter). */
export function useTracing(tracing: Tracing): Tracing {
  active = tracing;
  return tracing;
}
