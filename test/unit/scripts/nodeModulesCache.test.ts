import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const { restoreNodeModules, saveNodeModules } = require('../../../scripts/lib/nodeModulesCache') as {
  restoreNodeModules(repoRoot: string, key: string, root?: string): 'linked' | 'none' | 'stale';
  saveNodeModules(repoRoot: string, key: string, root?: string): void;
};

let work: string;
let cache: string;

function write(file: string, content: string, mtime?: Date): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  if (mtime) fs.utimesSync(file, mtime, mtime);
}

/** A clone whose node_modules npm just installed: package files (npm's 1985 mtimes), a stamp, a workspace link. */
function installedClone(name: string): string {
  const clone = path.join(work, name);
  const npmTime = new Date('1985-10-26T08:15:00Z');
  write(path.join(clone, 'node_modules/left-pad/index.js'), 'module.exports = 1;', npmTime);
  write(path.join(clone, 'node_modules/left-pad/package.json'), '{}', npmTime);
  write(path.join(clone, 'node_modules/.cache/genmedia/package-lock.sha256'), 'abc\n');
  write(path.join(clone, 'node_modules/.prisma/client/default.js'), 'generated');
  fs.mkdirSync(path.join(clone, 'console'), { recursive: true });
  fs.symlinkSync('../console', path.join(clone, 'node_modules/console'));
  return clone;
}

function emptyClone(name: string): string {
  const clone = path.join(work, name);
  fs.mkdirSync(path.join(clone, 'console'), { recursive: true });
  return clone;
}

beforeEach(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'node-modules-cache-'));
  cache = path.join(work, 'cache');
});

afterEach(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('the node_modules kept per lock file', () => {
  it('has no copy of a key never saved', () => {
    expect(restoreNodeModules(emptyClone('fresh'), 'k1', cache)).toBe('none');
    expect(fs.existsSync(path.join(work, 'fresh', 'node_modules'))).toBe(false);
  });

  it("links a saved install into a fresh clone, without what is written after the install, its workspace links into the clone's own folders", () => {
    const installed = installedClone('first');
    saveNodeModules(installed, 'k1', cache);

    const fresh = emptyClone('fresh');
    expect(restoreNodeModules(fresh, 'k1', cache)).toBe('linked');
    const file = path.join(fresh, 'node_modules/left-pad/index.js');
    expect(fs.readFileSync(file, 'utf8')).toBe('module.exports = 1;');
    expect(fs.statSync(file).ino).toBe(fs.statSync(path.join(installed, 'node_modules/left-pad/index.js')).ino);
    expect(fs.existsSync(path.join(fresh, 'node_modules/.cache'))).toBe(false);
    expect(fs.existsSync(path.join(fresh, 'node_modules/.prisma'))).toBe(false);
    expect(fs.realpathSync(path.join(fresh, 'node_modules/console'))).toBe(fs.realpathSync(path.join(fresh, 'console')));
  });

  it('throws a copy away instead of linking it once one of its files was rewritten in place', async () => {
    const installed = installedClone('first');
    saveNodeModules(installed, 'k1', cache);
    // A program rewriting the file through the clone's hard link rewrites the cached file; later than the file
    // system's clock tick, by which a file's time can trail the system clock.
    await new Promise((r) => setTimeout(r, 50));
    write(path.join(installed, 'node_modules/left-pad/index.js'), 'module.exports = 2;');

    const fresh = emptyClone('fresh');
    expect(restoreNodeModules(fresh, 'k1', cache)).toBe('stale');
    expect(fs.existsSync(path.join(fresh, 'node_modules'))).toBe(false);
    expect(restoreNodeModules(fresh, 'k1', cache)).toBe('none');
  });

  it('keeps the copies of the two lock files saved last', () => {
    for (const [key, secondsAgo] of [['k1', 20], ['k2', 10], ['k3', 0]] as const) {
      saveNodeModules(installedClone(`clone-${key}`), key, cache);
      const at = new Date(Date.now() - secondsAgo * 1_000);
      fs.utimesSync(path.join(cache, 'node-modules', key), at, at);
    }
    expect(fs.readdirSync(path.join(cache, 'node-modules')).sort()).toEqual(['k2', 'k3']);
  });
});
