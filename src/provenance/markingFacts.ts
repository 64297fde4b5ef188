/** What the output marker needs of a job, read from its row and its account's. */
import type { PrismaClient } from '../db/prisma';
import type { MarkingFacts } from './outputMarker';

export function createMarkingFacts(prisma: PrismaClient): (jobId: string) => Promise<MarkingFacts> {
  return async (jobId) => {
    const job = await prisma.job.findUniqueOrThrow({
      where: { id: jobId },
      select: {
        modelSlug: true,
        versionId: true,
        providerId: true,
        input: true,
        account: { select: { provenanceEnabled: true, provenanceIncludesPrompt: true } },
      },
    });
    const prompt = (job.input as Record<string, unknown> | null)?.prompt;
    return {
      modelSlug: job.modelSlug,
      version: job.versionId,
      providerId: job.providerId,
      marked: job.account.provenanceEnabled,
      ...(job.account.provenanceIncludesPrompt && typeof prompt === 'string' ? { prompt } : {}),
    };
  };
}
