import type { Command } from 'commander';

/** The options every user command takes: where the API is, the key, and --json. */
export function connectionOptions(command: Command): Command {
  return command
    .option('--api-key <key>', 'API key (default: GENMEDIA_API_KEY, else `genmedia login`)')
    .option('--base-url <url>', 'API address (default: GENMEDIA_BASE_URL, else the login, else http://localhost:3000)')
    .option('--allow-insecure-http', 'send the key over plain http:// to another machine (refused otherwise)')
    .option('--json', 'print one JSON object');
}
