/** What the output marker needs of a job, read from its row and its account's. */
import type { PrismaClient } from '../db/prisma';
import type { MarkingFacts } from './outputMarker';

interface FactsRow {
  model_slug: string;
  version_id: string;
  provider_id: string;
  provenance_enabled: boolean;
  /** The input's prompt when it is a string and the account lets prompts into the manifest. */
  prompt: string | null;
}

/** One statement, a join (the relation query took two): it runs for every job a provider finishes. */
export function createMarkingFacts(prisma: PrismaClient): (jobId: string) => Promise<MarkingFacts> {
  return async (jobId) => {
    const [row] = await prisma.$queryRaw<FactsRow[]>`
      SELECT j.model_slug, j.version_id, j.provider_id, a.provenance_enabled,
             CASE WHEN a.provenance_includes_prompt AND jsonb_typeof(j.input -> 'prompt') = 'string' THEN j.input ->> 'prompt' END AS prompt
      FROM jobs j JOIN accounts a ON a.id = j.account_id
      WHERE j.id = ${jobId}`;
    if (!row) throw new Error(`job ${jobId} not found`);
    return {
      modelSlug: row.model_slug,
      version: row.version_id,
      providerId: row.provider_id,
      marked: row.provenance_enabled,
      ...(row.prompt !== null ? { prompt: row.prompt } : {}),
    };
  };
}
