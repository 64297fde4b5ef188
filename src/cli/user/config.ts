import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What `genmedia login` keeps: the API key and the API's address. */
export interface StoredLogin {
  apiKey: string;
  baseUrl?: string;
}

/** `$GENMEDIA_CONFIG_DIR`, else `$XDG_CONFIG_HOME/genmedia`, else `~/.config/genmedia`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GENMEDIA_CONFIG_DIR) return env.GENMEDIA_CONFIG_DIR;
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'genmedia');
}

export function configFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'credentials.json');
}

export function readLogin(env: NodeJS.ProcessEnv = process.env): StoredLogin | null {
  try {
    const parsed = JSON.parse(readFileSync(configFile(env), 'utf8')) as Partial<StoredLogin>;
    return typeof parsed.apiKey === 'string' ? { apiKey: parsed.apiKey, baseUrl: parsed.baseUrl } : null;
  } catch {
    return null;
  }
}

/** Writes the key readable by its owner only (0600, in a 0700 directory), also when the file existed before. */
export function writeLogin(login: StoredLogin, env: NodeJS.ProcessEnv = process.env): string {
  const dir = configDir(env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = configFile(env);
  writeFileSync(file, JSON.stringify(login, null, 2) + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return file;
}

export function removeLogin(env: NodeJS.ProcessEnv = process.env): boolean {
  const file = configFile(env);
  try {
    rmSync(file);
    return true;
  } catch {
    return false;
  }
}
