import type { Batch, Genmedia } from '@genmedia/client';
import { useEffect, useState } from 'react';

/**
 * Follows the batch's event stream (the SDK resumes it across dropped connections) and hands each change to
 * `onBatch`, until the batch is final. Returns whether the stream is following it: false once it ended or failed,
 * when the page falls back to reading the batch again.
 */
export function useBatchEvents(client: Genmedia, batchId: string, onBatch: (batch: Batch) => void): boolean {
  // The batch whose stream ended: any other batch's is being followed.
  const [endedFor, setEndedFor] = useState<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    void (async () => {
      try {
        for await (const batch of client.batchEvents(batchId, { signal: controller.signal })) onBatch(batch);
      } catch {
        // The page reads the batch itself instead.
      } finally {
        if (!controller.signal.aborted) setEndedFor(batchId);
      }
    })();
    return () => controller.abort();
    // onBatch stores the batch in the page's query: a new function each render is the same intent.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, batchId]);
  return endedFor !== batchId;
}
