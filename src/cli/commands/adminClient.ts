/**
 * The admin commands talk to the operator API over HTTP with a key that has the `admin` scope. Only the first admin
 * key is made on the host, in the database (`genmedia admin keys create --scopes admin`).
 */
import type { Command } from 'commander';
import { GenmediaAdmin, GenmediaError } from '@genmedia/client';
import { devDataDir, readDevAdminCredentials } from '../../accounts/devAccount';
import { CliError } from '../context';
import { isLoopback, resolveBaseUrl } from '../user/session';

/** The connection options every admin command takes (declared once on `genmedia admin`). */
export function addConnectionOptions(admin: Command): Command {
  return admin
    .option('--base-url <url>', 'the API (default GENMEDIA_BASE_URL, else http://localhost:3000)')
    .option('--admin-key <key>', 'a key with the admin scope (default GENMEDIA_ADMIN_KEY, else the dev admin key of `npm run dev`)')
    .option('--allow-insecure-http', 'send the key over plain http:// to another machine anyway');
}

interface AdminConnection {
  baseUrl?: string;
  adminKey?: string;
  allowInsecureHttp?: boolean;
}

export function openAdminClient(options: AdminConnection, env: NodeJS.ProcessEnv = process.env): GenmediaAdmin {
  const baseUrl = resolveBaseUrl({ baseUrl: options.baseUrl, allowInsecureHttp: options.allowInsecureHttp }, env);
  const apiKey = options.adminKey ?? env.GENMEDIA_ADMIN_KEY ?? localDevAdminKey(baseUrl, env);
  if (!apiKey) {
    throw new CliError('NO_ADMIN_KEY', 'no admin key: set GENMEDIA_ADMIN_KEY (make the first one on the host with `genmedia admin keys create --scopes admin`)');
  }
  return new GenmediaAdmin({ apiKey, baseUrl });
}

function localDevAdminKey(baseUrl: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!isLoopback(new URL(baseUrl).hostname)) return undefined;
  try {
    return readDevAdminCredentials(devDataDir(env))?.apiKey;
  } catch {
    return undefined;
  }
}

/**
 * Runs an admin command over the operator API and prints its result: one JSON object with --json, text otherwise.
 * An error answer prints its stable code and message and exits 1.
 */
export async function runAdmin<T extends object>(command: Command, body: (admin: GenmediaAdmin) => Promise<T>, human: (result: T) => string): Promise<void> {
  const options = command.optsWithGlobals() as AdminConnection & { json?: boolean };
  try {
    const result = await body(openAdminClient(options));
    process.stdout.write(options.json ? JSON.stringify(result) + '\n' : human(result) + '\n');
  } catch (err) {
    const code = err instanceof CliError || err instanceof GenmediaError ? err.code : 'ERROR';
    const message = err instanceof Error ? err.message : String(err);
    if (options.json) process.stdout.write(JSON.stringify({ error: { code, message } }) + '\n');
    else process.stderr.write(`error: ${message}\n`);
    process.exitCode = 1;
  }
}
