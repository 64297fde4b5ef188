import type { Genmedia, JobEvent } from '@genmedia/client';
import { isTerminal } from '@genmedia/client';
import { useEffect, useState } from 'react';

export interface LiveState {
  last: JobEvent | null;
  /** True while the stream is open and the job not finished. */
  live: boolean;
  error: unknown;
}

/**
 * Follows the job's event stream from the start (the SDK resumes with Last-Event-ID across dropped connections) and
 * keeps the newest event; `onTerminal` runs once the job has finished, to read its outputs.
 */
export function useJobEvents(client: Genmedia, jobId: string, enabled: boolean, onTerminal: () => void): LiveState {
  const [state, setState] = useState<LiveState>({ last: null, live: enabled, error: null });
  useEffect(() => {
    if (!enabled) return;
    const controller = new AbortController();
    setState({ last: null, live: true, error: null });
    void (async () => {
      try {
        for await (const event of client.events(jobId, { signal: controller.signal })) {
          setState((s) => ({ ...s, last: event }));
          if (isTerminal(event.status)) break;
        }
        if (!controller.signal.aborted) {
          setState((s) => ({ ...s, live: false }));
          onTerminal();
        }
      } catch (err) {
        if (!controller.signal.aborted) setState((s) => ({ ...s, live: false, error: err }));
      }
    })();
    return () => controller.abort();
    // onTerminal is a refetch of the same job: a new function each render is the same intent.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, jobId, enabled]);
  return state;
}
