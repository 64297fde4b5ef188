import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The nearest folder at or above `from` that holds package.json: the repository (or the image's /app). Run from the
 * sources `from` is the repository itself; run from the build (dist/src/…) it is dist/, and the answer is its parent,
 * where catalog/, console/ and workflows/ are.
 */
export function findRepoRoot(from: string): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json at or above ${from}`);
  }
}
