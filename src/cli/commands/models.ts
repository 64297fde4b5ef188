import type { Command } from 'commander';
import { VERSION_STATUSES } from '../../catalog/catalogFiles';
import { seedCatalog } from '../../catalog/seed';
import { isVersionStatus } from '../../catalog/versionStatus';
import { CliError, runCommand } from '../context';
import { runAdmin } from './adminClient';

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
    .action((slug: string, versionId: string, status: string, _opts, command: Command) =>
      runAdmin(
        command,
        (client) => {
          if (!isVersionStatus(status)) throw new CliError('INVALID_ARGUMENTS', `Unknown status "${status}"; use one of ${VERSION_STATUSES.join(', ')}`);
          return client.setVersionStatus({ model: slug, versionId, status });
        },
        (r) => `${r.slug}@${r.versionId}: ${r.previousStatus} -> ${r.status} (catalog revision ${r.revision})`,
      ),
    );

  models
    .command('seed')
    .description('Apply the catalog files (catalog/ or --dir) to the database on the host (DATABASE_URL); idempotent')
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
