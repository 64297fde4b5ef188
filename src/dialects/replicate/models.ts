/** Replicate's model and version objects, from the catalog and the caller's own jobs. */
import type { PrismaClient } from '../../db/prisma';
import { countAccountRunsOf } from '../../jobs/accountJobs';
import type { Caller } from '../../jobs/quote';
import { DomainError } from '../../shared/errors';
import { resolveReplicateModel, type ReplicateModel, type ReplicateVersion } from './catalog';

export interface ReplicateVersionView {
  id: string;
  created_at: string;
  /** Not a Cog version: a value Replicate's clients read as "no array iterators" (they parse it as a version). */
  cog_version: string;
  openapi_schema: Record<string, unknown>;
}

export interface ReplicateModelView {
  url: string;
  owner: string;
  name: string;
  description: string;
  visibility: 'public' | 'private';
  github_url: null;
  paper_url: null;
  license_url: null;
  run_count: number;
  cover_image_url: null;
  default_example: null;
  latest_version: ReplicateVersionView | null;
}

export const COG_VERSION = 'genmedia';

/** Outputs are a list of file URLs, whatever the model makes (one image, four, a video). */
const OUTPUT_SCHEMA = { type: 'array', items: { type: 'string', format: 'uri' }, title: 'Output' };

export function versionView(model: ReplicateModel, version: ReplicateVersion): ReplicateVersionView {
  return {
    id: version.id,
    created_at: version.releasedAt.toISOString(),
    cog_version: COG_VERSION,
    openapi_schema: {
      openapi: '3.0.2',
      info: { title: model.title, version: version.versionId },
      paths: {},
      components: { schemas: { Input: { title: 'Input', ...version.inputSchema }, Output: OUTPUT_SCHEMA } },
    },
  };
}

export async function getReplicateModel(prisma: PrismaClient, caller: Caller, baseUrl: string, name: string): Promise<ReplicateModelView> {
  const model = await resolveReplicateModel(prisma, caller, name);
  const [owner, modelName] = model.name.split('/');
  // The caller's own runs: the count over every account would tell one account how much the others use a model.
  const runCount = await countAccountRunsOf(prisma, caller.account.id, model.slug);
  return {
    url: `${baseUrl}/models/${model.name}`,
    owner,
    name: modelName,
    description: model.description,
    visibility: model.visibility,
    github_url: null,
    paper_url: null,
    license_url: null,
    run_count: runCount,
    cover_image_url: null,
    default_example: null,
    latest_version: model.latest ? versionView(model, model.latest) : null,
  };
}

export async function getReplicateVersion(prisma: PrismaClient, caller: Caller, name: string, id: string): Promise<ReplicateVersionView> {
  const model = await resolveReplicateModel(prisma, caller, name);
  const version = model.versions.find((v) => v.id === id);
  if (!version) throw new DomainError('NOT_FOUND', `The model '${name}' has no version '${id}'`, [{ path: 'version', message: 'unknown version' }]);
  return versionView(model, version);
}
