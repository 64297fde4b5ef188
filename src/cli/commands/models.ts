import type { Command } from 'commander';
import { VERSION_STATUSES } from '../../shared/versionStatuses';
import { seedCatalog } from '../../catalog/seed';
import { isVersionStatus } from '../../catalog/versionStatus';
import { CliError, parseList, parseNonNegativeInt, runCommand } from '../context';
import { readFileSync } from 'node:fs';
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

  models
    .command('import-cog')
    .description(
      'Register a model served by a Cog prediction server: its input schema from the server\'s /openapi.json (or --schema), ' +
        'fields passed through under their own names, a price per generation. The slug\'s first part is the provider: ' +
        'created with the cog adapter when missing, and the server joins its pool.',
    )
    .requiredOption('--url <server>', 'the Cog server, e.g. http://gpu-1.lan:5000')
    .requiredOption('--slug <slug>', '<maker>/<model>/<capability>, e.g. selfhosted/flux-dev/text-to-image')
    .requiredOption('--price <microCents>', 'what one generation costs the client, in micro-cents', parseNonNegativeInt)
    .option('--slots <n>', "predictions the server runs at once (its COG_MAX_CONCURRENCY)", parseNonNegativeInt, 1)
    .option('--schema <file>', "the server's OpenAPI document or Input schema, for a server that serves none")
    .option('--name <name>', 'display name')
    .option('--description <text>', 'description')
    .option('--version-id <id>', 'version id', 'v1')
    .option('--visibility <visibility>', 'public, segment (with --segments) or private', 'public')
    .option('--segments <list>', 'segments that see a segment model, comma-separated', parseList, [])
    .option('--processing-seconds <s>', 'typical time of one generation (the ETA)', parseNonNegativeInt, 30)
    .option('--json', 'print one JSON object')
    .action((opts, command: Command) =>
      runAdmin(
        command,
        (client) => {
          if ((opts.slots as number) < 1) throw new CliError('INVALID_ARGUMENTS', '--slots must be at least 1');
          const schema = opts.schema ? (JSON.parse(readFileSync(opts.schema as string, 'utf8')) as Record<string, unknown>) : undefined;
          return client.importCogModel({
            url: opts.url,
            slug: opts.slug,
            priceMicroCents: opts.price,
            slots: opts.slots,
            schema,
            name: opts.name,
            description: opts.description,
            versionId: opts.versionId,
            processingSeconds: Math.max(1, opts.processingSeconds as number),
            visibility: opts.visibility,
            segments: opts.segments,
          });
        },
        (r) =>
          `${r.slug}@${r.versionId} on ${r.serverUrl} (${r.slots} slot${r.slots === 1 ? '' : 's'}, provider ${r.providerId}): ` +
          `inputs ${r.fields.join(', ')}; ${r.priceMicroCents} micro-cents per generation (catalog revision ${r.revision})`,
      ),
    );
}
