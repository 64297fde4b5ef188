/** What the workers count of outputs: deliveries to the accounts' own buckets, settled, and the bytes deleted. */
import { Counter, type Registry } from 'prom-client';

export type OutputMetrics = ReturnType<typeof createOutputMetrics>;

export function createOutputMetrics(registry: Registry) {
  return {
    outputDeliveries: new Counter({
      name: 'genmedia_output_deliveries_total',
      help: "Deliveries of jobs' outputs to their accounts' own buckets, settled, by outcome (delivered, failed: given up)",
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    outputBytesDeleted: new Counter({
      name: 'genmedia_output_bytes_deleted_total',
      help: 'Bytes of job outputs deleted from storage, by reason (retention, client, operator)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
  };
}
