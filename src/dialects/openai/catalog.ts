/**
 * The catalog as OpenAI's clients see it: a model is named by its slug or by an alias the catalog gives it
 * (`dialects.openai.aliases`), and carries how OpenAI's `size`, `quality` and `n` map onto its input.
 */
import type { PrismaClient } from '../../db/prisma';
import { NO_DIALECTS, type DialectsDef } from '../../catalog/catalogFiles';
import type { OpenAiDialectDef } from './catalogSchema';
import { resolveModelVersion } from '../../catalog/versionResolver';
import { canUseModel } from '../../catalog/visibility';
import type { Caller } from '../../jobs/quote';
import { DomainError } from '../../shared/errors';

export interface OpenAiModel {
  slug: string;
  /** The names OpenAI clients may use: the slug, then the aliases. */
  names: string[];
  providerId: string;
  releasedAt: Date;
  dialect: OpenAiDialectDef | null;
}

const RUNNABLE = ['active', 'deprecated'] as const;

function openAiDialect(dialects: unknown): OpenAiDialectDef | null {
  return ((dialects ?? NO_DIALECTS) as DialectsDef).openai ?? null;
}

/**
 * Every model the caller's key may use: visible to its account, allowed by the key, with a runnable version on a
 * provider that takes jobs here (a real upstream's only with its credential), as submit would find it.
 */
export async function usableOpenAiModels(prisma: PrismaClient, caller: Caller): Promise<OpenAiModel[]> {
  const rows = await prisma.model.findMany({
    where: { versions: { some: { status: { in: [...RUNNABLE] } } } },
    select: {
      slug: true,
      visibility: true,
      segments: true,
      providerId: true,
      dialects: true,
      versions: { where: { status: { in: [...RUNNABLE] } }, select: { releasedAt: true }, orderBy: { releasedAt: 'asc' }, take: 1 },
    },
    orderBy: [{ sortOrder: 'asc' }, { slug: 'asc' }],
  });
  const usable = rows.filter((row) => canUseModel(row, caller.account, caller.apiKey));
  // Cached per catalog revision: no query per model on a warm cache.
  const runnable = await Promise.all(usable.map(async (row) => (await resolveModelVersion(prisma, row.slug))?.provider.isActive === true));
  return usable
    .filter((_, index) => runnable[index])
    .map((row) => {
      const dialect = openAiDialect(row.dialects);
      return { slug: row.slug, names: [row.slug, ...(dialect?.aliases ?? [])], providerId: row.providerId, releasedAt: row.versions[0].releasedAt, dialect };
    });
}

/**
 * The model an OpenAI model name means for this caller: by slug, else by alias. A model the caller may not use is
 * answered as unknown, as OpenAI answers a model the key cannot reach.
 */
export async function resolveOpenAiModel(prisma: PrismaClient, caller: Caller, name: string): Promise<OpenAiModel> {
  const found = (await usableOpenAiModels(prisma, caller)).find((model) => model.names.includes(name));
  if (!found) {
    throw new DomainError('MODEL_NOT_FOUND', `The model '${name}' does not exist or you do not have access to it`, [{ path: 'model', message: 'unknown model' }]);
  }
  return found;
}
