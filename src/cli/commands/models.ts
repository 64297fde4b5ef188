import type { Command } from 'commander';
import { VERSION_STATUSES } from '../../catalog/catalogFiles';
import { seedCatalog } from '../../catalog/seed';
import { setVersionStatus, VersionStatusError } from '../../catalog/versionStatus';
import { CliError, runCommand } from '../context';

/** Catalog commands (`admin models ...`). */
export function registerModelCommands(admin: Command): void {
  const models = admin.command('models').description('Model catalog administration');

  models
    .command('version-status <slug> <versionId> <status>')
    .description(
      `Set a model version's status (${VERSION_STATUSES.join(', ')}); takes effect at once. ` +
        'Deleted is permanent. The next catalog seed applies the catalog files again.',
    )
    .option('--json', 'print one JSON object')
    .action((slug: string, versionId: string, status: string, opts) =>
      runCommand(
        opts,
        async (prisma) => {
          try {
            return await setVersionStatus(prisma, slug, versionId, status);
          } catch (err) {
            if (err instanceof VersionStatusError) throw new CliError('INVALID_VERSION_STATUS_CHANGE', err.message);
            throw err;
          }
        },
        (r) => `${r.slug}@${r.versionId}: ${r.previousStatus} -> ${r.status} (catalog revision ${r.revision})`,
      ),
    );

  models
    .command('seed')
    .description('Apply the catalog files (catalog/ or --dir) to the database; idempotent')
    .option('--dir <path>', 'catalog directory')
    .option('--json', 'print one JSON object')
    .action((opts) =>
      runCommand(
        opts,
        (prisma) => seedCatalog(prisma, { dir: opts.dir }),
        (r) =>
          `catalog revision ${r.revision}: ${r.models} models, ${r.versions} versions` +
          (r.keptDeleted.length ? `; kept deleted: ${r.keptDeleted.join(', ')}` : ''),
      ),
    );
}
