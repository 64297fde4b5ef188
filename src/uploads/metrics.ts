/** What the API counts of uploads: the presigned uploads it hands out and the bytes they declare, by content type. */
import { Counter, type Registry } from 'prom-client';

export type UploadMetrics = ReturnType<typeof createUploadMetrics>;

export function createUploadMetrics(registry: Registry) {
  return {
    uploadPresigns: new Counter({
      name: 'genmedia_upload_presigns_total',
      help: 'Presigned uploads handed out, by content type',
      labelNames: ['content_type'] as const,
      registers: [registry],
    }),
    uploadDeclaredBytes: new Counter({
      name: 'genmedia_upload_declared_bytes_total',
      help: 'Bytes declared by presigned uploads (the size their PUT must send; presigns without a size add nothing)',
      labelNames: ['content_type'] as const,
      registers: [registry],
    }),
  };
}
