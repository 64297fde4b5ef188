import type { Command } from 'commander';
import { registerBatchCommands } from './commands/batch';
import { registerDestinationCommands } from './commands/destination';
import { registerUploadCommand } from './commands/files';
import { registerUserJobCommands } from './commands/jobs';
import { registerLoginCommands } from './commands/login';
import { registerUserModelCommands } from './commands/models';
import { registerRunCommands } from './commands/run';
import { registerVerifyCommand } from './commands/verify';

/** The commands of an API user, on the SDK: run, estimate, jobs, batch, models, upload, verify, destination, login. */
export function registerUserCommands(program: Command): void {
  registerRunCommands(program);
  registerUserJobCommands(program);
  registerBatchCommands(program);
  registerUserModelCommands(program);
  registerUploadCommand(program);
  registerVerifyCommand(program);
  registerDestinationCommands(program);
  registerLoginCommands(program);
}
