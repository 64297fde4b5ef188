/**
 * Operational change of a model version's status (`genmedia admin models version-status`).
 * Takes effect at once: the catalog revision is bumped in the same transaction, so cached listings
 * are dropped. `deleted` is permanent: a deleted version cannot change status again.
 * The catalog files stay the source of truth: the next seed applies their status (except over a deletion).
 */
import type { Prisma } from '@prisma/client';
import type { VersionStatusChange } from '../contracts/http/admin';
import { VERSION_STATUSES, type VersionStatus } from '../shared/versionStatuses';
import { bumpCatalogRevision } from './revision';

export class VersionStatusError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VersionStatusError';
  }
}

export function isVersionStatus(value: string): value is VersionStatus {
  return (VERSION_STATUSES as readonly string[]).includes(value);
}

/** Changes the status in the caller's transaction (the operator API audits it in the same one). */
export async function changeVersionStatus(
  tx: Prisma.TransactionClient,
  slug: string,
  versionId: string,
  status: string,
): Promise<VersionStatusChange> {
  if (!isVersionStatus(status)) {
    throw new VersionStatusError(`Unknown status "${status}"; use one of ${VERSION_STATUSES.join(', ')}`);
  }
  const model = await tx.model.findUnique({ where: { slug }, select: { id: true } });
  if (!model) throw new VersionStatusError(`No model with slug "${slug}"`);
  const version = await tx.modelVersion.findUnique({
    where: { modelId_versionId: { modelId: model.id, versionId } },
    select: { status: true },
  });
  if (!version) throw new VersionStatusError(`Model "${slug}" has no version "${versionId}"`);
  if (version.status === 'deleted' && status !== 'deleted') {
    throw new VersionStatusError(`Version "${versionId}" of "${slug}" is deleted; deletion is permanent`);
  }
  await tx.modelVersion.update({
    where: { modelId_versionId: { modelId: model.id, versionId } },
    data: { status },
  });
  const revision = await bumpCatalogRevision(tx);
  return { slug, versionId, previousStatus: version.status, status, revision };
}
