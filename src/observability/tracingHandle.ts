/** What a process holds of its tracing, on or off; the SDK that fills it is loaded only when tracing is on. */
import type { ClientInterceptors } from '@temporalio/client';
import type { InjectedSinks, WorkerInterceptors } from '@temporalio/worker';

export interface Tracing {
  enabled: boolean;
  /** For every Temporal client of the process: starts, updates and signals carry the caller's trace. */
  clientInterceptors: ClientInterceptors | undefined;
  /** For every worker: activities continue the workflow's trace; workflow spans leave the sandbox through a sink. */
  workerInterceptors: WorkerInterceptors | undefined;
  workerSinks: InjectedSinks<any> | undefined;
  /** Flushes what is buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Every workflow bundle carries tracing's workflow interceptors, which hand their spans to the `exporter` sink: with
 * tracing off the worker drops them, so the same bundle (and build id) serves both settings.
 */
const DROPPED_WORKFLOW_SPANS: InjectedSinks<any> = { exporter: { export: { fn: () => undefined, callDuringReplay: false } } };

export const TRACING_OFF: Tracing = {
  enabled: false,
  clientInterceptors: undefined,
  workerInterceptors: undefined,
  workerSinks: DROPPED_WORKFLOW_SPANS,
  shutdown: async () => undefined,
};
