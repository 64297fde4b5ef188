import type { Command } from 'commander';

/** Catalog commands (`admin models ...`). */
export function registerModelCommands(admin: Command): void {
  admin.command('models').description('Model catalog administration');
}
