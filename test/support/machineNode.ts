/**
 * The machine as a person's shell sees it, outside `npm test`'s hand-over to the provided Node: its PATH without the
 * provided Node's directory, and the `node` binaries on it that are older than the project's.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const nodeRuntime = require('../../scripts/lib/nodeRuntime') as { MAJOR: number; VERSION: string; BIN_DIR: string };

export const PROVIDED_NODE_VERSION = `v${nodeRuntime.VERSION}`;

const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

export function nodeVersionOf(node: string): string {
  return spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
}

/** PATH without the provided Node's directory. */
export function machinePath(env: NodeJS.ProcessEnv = process.env): string {
  return (env.PATH ?? '')
    .split(path.delimiter)
    .filter((dir) => dir && path.resolve(dir) !== nodeRuntime.BIN_DIR)
    .join(path.delimiter);
}

/** The machine's own `node` binaries on PATH older than the project's Node, first on PATH first. */
export function olderMachineNodes(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = new Set<string>();
  for (const dir of machinePath(env).split(path.delimiter)) {
    const candidate = path.join(dir, 'node');
    if (fs.existsSync(candidate)) found.add(fs.realpathSync(candidate));
  }
  return [...found].filter((node) => majorOf(nodeVersionOf(node)) < nodeRuntime.MAJOR);
}

/** A person's shell: no npm script variables, no hand-over marker, the machine's PATH. */
export function shellEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const kept = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('npm_')));
  delete kept.GENMEDIA_NODE_HANDOVER;
  return { ...kept, PATH: machinePath(env) };
}
