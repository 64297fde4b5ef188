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

export const TRACING_OFF: Tracing = {
  enabled: false,
  clientInterceptors: undefined,
  workerInterceptors: undefined,
  workerSinks: undefined,
  shutdown: async () => undefined,
};
