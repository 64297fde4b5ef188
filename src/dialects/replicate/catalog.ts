/**
 * The catalog as Replicate's clients see it: each model is named `owner/name` (its maker and model, or the name its
 * catalog entry gives it in `dialects.replicate.name`), and each of its versions has an id of Replicate's shape, the
 * SHA-256 of `<slug>@<version>` in hex, so a bare version id names exactly one of our versions.
 */
import { createHash } from 'node:crypto';
import type { PrismaClient } from '../../db/prisma';
import { NO_DIALECTS, type DialectsDef } from '../../catalog/catalogFiles';
import { replicateModelName } from './catalogSchema';
import type { VersionStatus } from '../../shared/versionStatuses';
import { isRunnable, pickCurrentVersion } from '../../catalog/versionResolver';
import { canUseModel } from '../../catalog/visibility';
import type { Caller } from '../../jobs/quote';
import { DomainError } from '../../shared/errors';

export interface ReplicateVersion {
  /** Replicate's version id: the SHA-256 of `<slug>@<versionId>`. */
  id: string;
  versionId: string;
  status: VersionStatus;
  releasedAt: Date;
  inputSchema: object;
}

export interface ReplicateModel {
  slug: string;
  /** `owner/name`. */
  name: string;
  title: string;
  description: string;
  visibility: 'public' | 'private';
  versions: ReplicateVersion[];
  /** The version a prediction without one runs: the newest active one, else the newest deprecated one. */
  latest: ReplicateVersion | null;
}

export function replicateVersionId(slug: string, versionId: string): string {
  return createHash('sha256').update(`${slug}@${versionId}`).digest('hex');
}

/** The `owner/name` of a model slug, read from the model's catalog entry. */
export function nameOf(slug: string, dialects: unknown): string {
  return replicateModelName(slug, (dialects ?? NO_DIALECTS) as DialectsDef);
}

function notFound(name: string): DomainError {
  return new DomainError('MODEL_NOT_FOUND', `The model '${name}' does not exist or you do not have access to it`, [{ path: 'model', message: 'unknown model' }]);
}

/**
 * Every model the caller's key may use (its account can see it and the key's allowed models include it), under its
 * Replicate name: a model the key may not use is unknown here, as in the OpenAI dialect's list.
 */
export async function usableReplicateModels(prisma: PrismaClient, caller: Caller): Promise<ReplicateModel[]> {
  const rows = await prisma.model.findMany({
    select: {
      slug: true,
      name: true,
      description: true,
      visibility: true,
      segments: true,
      dialects: true,
      versions: { select: { versionId: true, status: true, releasedAt: true, inputSchema: true } },
    },
    orderBy: [{ sortOrder: 'asc' }, { slug: 'asc' }],
  });
  return rows
    .filter((row) => canUseModel(row, caller.account, caller.apiKey))
    .map((row) => {
      const versions = row.versions.map((v) => ({ ...v, id: replicateVersionId(row.slug, v.versionId), inputSchema: v.inputSchema as object }));
      return {
        slug: row.slug,
        name: nameOf(row.slug, row.dialects),
        title: row.name,
        description: row.description,
        // Replicate knows only these two: a model shown to some accounts only (a segment's) is private.
        visibility: row.visibility === 'public' ? 'public' : 'private',
        versions,
        latest: pickCurrentVersion(versions.filter((v) => isRunnable(v.status))),
      };
    });
}

/**
 * The model `owner/name` means for this caller. A model its key may not use is answered as unknown; a name two models
 * share (a model added outside the catalog files, which refuse that) names none of them rather than either.
 */
export async function resolveReplicateModel(prisma: PrismaClient, caller: Caller, name: string): Promise<ReplicateModel> {
  const found = (await usableReplicateModels(prisma, caller)).filter((model) => model.name === name);
  if (found.length !== 1) throw notFound(name);
  return found[0];
}

/** The model and version a version id (or `owner/name:<version id>`, or `owner/name` for its latest) names. */
export async function resolveReplicateVersion(
  prisma: PrismaClient,
  caller: Caller,
  reference: string,
): Promise<{ model: ReplicateModel; version: ReplicateVersion }> {
  const [name, id] = reference.includes('/') ? splitReference(reference) : [undefined, reference];
  const models = name === undefined ? await usableReplicateModels(prisma, caller) : [await resolveReplicateModel(prisma, caller, name)];
  for (const model of models) {
    const version = id === undefined ? model.latest : model.versions.find((v) => v.id === id);
    if (version) return { model, version };
  }
  throw new DomainError('MODEL_NOT_FOUND', `The version '${reference}' does not exist or you do not have access to it`, [{ path: 'version', message: 'unknown version' }]);
}

function splitReference(reference: string): [string, string | undefined] {
  const colon = reference.indexOf(':');
  return colon < 0 ? [reference, undefined] : [reference.slice(0, colon), reference.slice(colon + 1)];
}

/** The `owner/name` of each of these slugs (for predictions of models read in one go). */
export async function namesOfSlugs(prisma: PrismaClient, slugs: string[]): Promise<Map<string, string>> {
  const unique = [...new Set(slugs)];
  if (unique.length === 0) return new Map();
  const rows = await prisma.model.findMany({ where: { slug: { in: unique } }, select: { slug: true, dialects: true } });
  const names = new Map(rows.map((row) => [row.slug, nameOf(row.slug, row.dialects)]));
  // A job of a model since removed from the catalog keeps a name of the same shape.
  for (const slug of unique) if (!names.has(slug)) names.set(slug, nameOf(slug, null));
  return names;
}
