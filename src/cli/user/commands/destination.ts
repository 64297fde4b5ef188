import { text } from 'node:stream/consumers';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import type { Destination } from '@genmedia/client';
import { CliError } from '../../context';
import { connectionOptions } from '../options';
import { runClientCommand, type CommandOptions } from '../output';
import { openClient } from '../session';

/** Where `destination set` takes the secret from before it asks: never an argument, which shells and `ps` would show. */
export const SECRET_ENV = 'GENMEDIA_DESTINATION_SECRET_ACCESS_KEY';

interface SetOptions extends CommandOptions {
  endpoint: string;
  region?: string;
  bucket: string;
  prefix?: string;
  accessKeyId: string;
}

/** The secret access key from GENMEDIA_DESTINATION_SECRET_ACCESS_KEY, else the whole of a piped stdin, else typed at the prompt. */
async function readSecret(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const fromEnv = env[SECRET_ENV]?.trim();
  if (fromEnv) return fromEnv;
  if (!process.stdin.isTTY) return (await text(process.stdin)).trim();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('Secret access key: ')).trim();
  } finally {
    rl.close();
  }
}

function describe(destination: Destination | null): string {
  if (!destination) return 'no destination: outputs stay in genmedia only';
  return [
    `s3 bucket   ${destination.bucket} at ${destination.endpoint} (${destination.region})`,
    `prefix      ${destination.prefix === '' ? '(bucket root)' : destination.prefix}`,
    `access key  ${destination.accessKeyId}, secret ${destination.secretSet ? 'set (never shown)' : 'not set'}`,
    `configured  ${destination.configuredAt}`,
  ].join('\n');
}

export function registerDestinationCommands(program: Command): void {
  const destination = program.command('destination').description("Your own S3-compatible bucket that completed jobs' outputs are delivered to");
  connectionOptions(destination.command('set'))
    .description(`Set the bucket (a probe object is written, read back and deleted first); the secret comes from ${SECRET_ENV}, stdin or the prompt`)
    .requiredOption('--endpoint <url>', 'origin of the S3 API, e.g. https://s3.eu-central-1.amazonaws.com')
    .option('--region <region>', 'the bucket\'s region (default us-east-1)')
    .requiredOption('--bucket <name>', 'bucket name')
    .option('--prefix <prefix>', 'key prefix every delivered object goes under (default: the bucket root)')
    .requiredOption('--access-key-id <id>', 'access key id')
    .action((options: SetOptions) =>
      runClientCommand(
        options,
        async () => {
          const secretAccessKey = await readSecret();
          if (!secretAccessKey) throw new CliError('INVALID_ARGUMENTS', `no secret access key given (set ${SECRET_ENV}, pipe it to stdin or type it at the prompt)`);
          const { endpoint, region, bucket, prefix, accessKeyId } = options;
          return openClient(options).setDestination({ endpoint, region, bucket, prefix, accessKeyId, secretAccessKey });
        },
        describe,
      ),
    );
  connectionOptions(destination.command('show'))
    .description('The bucket outputs are delivered to (never its secret)')
    .action((options: CommandOptions) => runClientCommand(options, () => openClient(options).getDestination(), describe));
  connectionOptions(destination.command('delete'))
    .description('Stop delivering outputs to your bucket and forget its credentials')
    .action((options: CommandOptions) =>
      runClientCommand(
        options,
        async () => {
          await openClient(options).deleteDestination();
          return { deleted: true };
        },
        () => 'destination removed',
      ),
    );
}
