/**
 * The workflow bundle of the sources, kept between starts of `npm run dev`: a start whose bundle inputs are unchanged
 * takes the bundle made before instead of running the bundler again (about 10 s of CPU). The inputs are what the
 * bundler itself read (every file, with a digest of its content) and looked for without finding (a file created there
 * would have changed what it resolved), so any edit, added file or updated package makes the next start bundle again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What a bundle was made of: each file read, by its content's digest, and each path looked for and not found. */
export interface BundleInputs {
  files: Record<string, string>;
  missing: string[];
}

function digestOf(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** The inputs of a bundle from the bundler's lists of the files it read and the paths it did not find. */
export function bundleInputsOf(files: Iterable<string>, missing: Iterable<string>): BundleInputs {
  const digests: Record<string, string> = {};
  for (const file of files) {
    const digest = digestOf(file);
    if (digest) digests[file] = digest;
  }
  return { files: digests, missing: [...missing].filter((p) => !existsSync(p)) };
}

/** Whether every file still has its content and every missing path is still missing. */
export function inputsUnchanged(inputs: BundleInputs): boolean {
  return Object.entries(inputs.files).every(([file, digest]) => digestOf(file) === digest) && inputs.missing.every((p) => !existsSync(p));
}

const CODE_FILE = 'workflows.js';
const INPUTS_FILE = 'inputs.json';

/** The bundle kept in `dir`, when its inputs are unchanged. */
export function readKeptBundle(dir: string): string | undefined {
  try {
    const inputs = JSON.parse(readFileSync(path.join(dir, INPUTS_FILE), 'utf8')) as BundleInputs;
    if (!inputsUnchanged(inputs)) return undefined;
    return readFileSync(path.join(dir, CODE_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

/** Keeps `code` and its inputs in `dir`; each file is written whole before it replaces the one before. */
export function keepBundle(dir: string, code: string, inputs: BundleInputs): void {
  mkdirSync(dir, { recursive: true });
  const write = (name: string, content: string) => {
    const tmp = path.join(dir, `${name}.${process.pid}.tmp`);
    writeFileSync(tmp, content);
    renameSync(tmp, path.join(dir, name));
  };
  // The inputs last: a reader never sees new inputs beside an older bundle.
  write(CODE_FILE, code);
  write(INPUTS_FILE, JSON.stringify(inputs));
}
