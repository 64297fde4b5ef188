/** Tuning of the workflow worker (src/lib/tuning.ts): read as `config.temporal.*`. */
import { z } from 'zod';
import { tuning } from '../lib/tuning';

export const WORKERS_TUNING = tuning({
  /**
   * Job workflows the workflow worker keeps in memory (Temporal's `maxCachedWorkflows`, about 0.6 MB each); the
   * others are replayed from their history when they move.
   */
  workflowCacheSize: z.number().int().min(0).default(100),
  /**
   * The workflow worker joins its worker deployment and each workflow stays on the build that started it
   * (docs/workflow-versioning.md); false: an unversioned worker.
   */
  workerVersioning: z.boolean().default(true),
});
