import { text } from 'node:stream/consumers';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { Genmedia, GenmediaError } from '@genmedia/client';
import { CliError } from '../../context';
import { removeLogin, writeLogin } from '../config';
import { runClientCommand, type CommandOptions } from '../output';
import { resolveBaseUrl } from '../session';


/** The key from --api-key, else typed at the prompt, else the whole of a piped stdin. */
async function readApiKey(given: string | undefined): Promise<string> {
  if (given) return given.trim();
  if (!process.stdin.isTTY) return (await text(process.stdin)).trim();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question('API key: ')).trim();
  } finally {
    rl.close();
  }
}

/** Proves the key works: the number of models it sees, or null for a valid key without the list_models scope. */
async function countModels(client: Genmedia): Promise<number | null> {
  try {
    return (await client.listModels()).length;
  } catch (err) {
    if (err instanceof GenmediaError && err.code === 'INSUFFICIENT_SCOPE') return null;
    throw err;
  }
}

export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description('Check an API key against the API and keep it for the next commands (readable by you only)')
    .option('--api-key <key>', 'the key; asked for (or read from stdin) when not given')
    .option('--base-url <url>', 'the API address to keep with it')
    .option('--allow-insecure-http', 'accept a plain http:// address on another machine (the key would travel in clear)')
    .option('--json', 'print one JSON object')
    .action((options: CommandOptions) =>
      runClientCommand(
        options,
        async () => {
          // Before the key is asked for: an address it must not be sent to is refused first.
          const baseUrl = resolveBaseUrl(options);
          const apiKey = await readApiKey(options.apiKey);
          if (!apiKey) throw new CliError('NO_API_KEY', 'no API key given');
          const models = await countModels(new Genmedia({ apiKey, baseUrl }));
          const file = writeLogin({ apiKey, baseUrl });
          return { baseUrl, configFile: file, models };
        },
        (r) => `logged in to ${r.baseUrl}${r.models === null ? '' : ` (${r.models} models available)`}; key saved in ${r.configFile}`,
      ),
    );

  program
    .command('logout')
    .description('Forget the saved API key')
    .option('--json', 'print one JSON object')
    .action((options: CommandOptions) =>
      runClientCommand(
        options,
        async () => ({ removed: removeLogin() }),
        (r) => (r.removed ? 'saved key removed' : 'no saved key'),
      ),
    );
}
