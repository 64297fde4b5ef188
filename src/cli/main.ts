import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './commands/accounts';
import { registerCreditCommands } from './commands/credits';
import { registerJobCommands } from './commands/jobs';
import { registerKeyCommands } from './commands/keys';
import { registerModelCommands } from './commands/models';
import { registerReportCommands } from './commands/reports';
import { addConnectionOptions } from './commands/adminClient';
import { registerUserCommands } from './user/register';

const wantsJson = process.argv.includes('--json');

function buildProgram(): Command {
  const program = new Command('genmedia').description('Generate images and videos with genmedia, and administer it');
  registerUserCommands(program);
  const admin = addConnectionOptions(
    program
      .command('admin')
      .description('Operators, over the operator API with an admin key: accounts, keys, credits, usage, the audit log, jobs and the catalog'),
  );
  registerAccountCommands(admin);
  registerKeyCommands(admin);
  registerCreditCommands(admin);
  registerModelCommands(admin);
  registerJobCommands(admin);
  registerReportCommands(admin);
  // With --json even a usage error is one JSON object on stdout.
  const configure = (command: Command) => {
    command.exitOverride();
    if (wantsJson) command.configureOutput({ writeErr: () => undefined });
    else command.showHelpAfterError();
    command.commands.forEach(configure);
  };
  configure(program);
  return program;
}

buildProgram()
  .parseAsync(process.argv)
  .catch((err) => {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.version')) {
      return;
    }
    const message = err instanceof Error ? err.message.replace(/^error: /, '') : String(err);
    if (wantsJson) process.stdout.write(JSON.stringify({ error: { code: 'INVALID_ARGUMENTS', message } }) + '\n');
    else if (!(err instanceof CommanderError)) process.stderr.write(`error: ${message}\n`);
    process.exitCode = err instanceof CommanderError ? err.exitCode || 2 : 1;
  });
