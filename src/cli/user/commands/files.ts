import type { Command } from 'commander';
import { connectionOptions } from '../options';
import { runClientCommand, type CommandOptions } from '../output';
import { openClient } from '../session';

export function registerUploadCommand(program: Command): void {
  connectionOptions(program.command('upload'))
    .description('Upload a local file; prints the fileUrl to use in job inputs (valid for an hour)')
    .argument('<path>')
    .option('--content-type <type>', 'when the extension does not tell it')
    .action((file: string, options: CommandOptions & { contentType?: string }) =>
      runClientCommand(
        options,
        () => openClient(options).upload(file, { contentType: options.contentType as never }),
        (uploaded) => `${uploaded.fileUrl}\n  file ${uploaded.fileId}, usable until ${uploaded.expiresAt}`,
      ),
    );
}
