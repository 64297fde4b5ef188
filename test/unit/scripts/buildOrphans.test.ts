/**
 * An incremental build keeps dist/ from the last one: what a removed source had compiled to is removed, and nothing
 * else (the compiled files of sources still there, files that are not compiled output).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const { removeOrphans } = require('../../../scripts/lib/build') as { removeOrphans(outDir: string, rootDir: string): void };

function write(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '');
}

describe('removeOrphans', () => {
  it('removes the compiled files of removed sources and keeps the rest', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'build-orphans-'));
    const out = path.join(root, 'dist');
    write(path.join(root, 'src', 'kept.ts'));
    write(path.join(root, 'src', 'nested', 'kept.ts'));
    const kept = ['src/kept.js', 'src/kept.js.map', 'src/nested/kept.js', 'build-info.json'];
    const removed = ['src/gone.js', 'src/gone.js.map', 'src/nested/gone.js', 'src/nested/gone.d.ts'];
    for (const file of [...kept, ...removed]) write(path.join(out, file));

    removeOrphans(out, root);

    expect(kept.filter((file) => !fs.existsSync(path.join(out, file)))).toEqual([]);
    expect(removed.filter((file) => fs.existsSync(path.join(out, file)))).toEqual([]);
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('does nothing where there is no dist/ yet', () => {
    expect(() => removeOrphans(path.join(os.tmpdir(), 'no-such-dist-here'), os.tmpdir())).not.toThrow();
  });
});
