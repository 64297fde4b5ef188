/**
 * The kept workflow bundle of `npm run dev`: taken again only while every file the bundler read has its content and
 * every path it looked for is still missing; an edit, a new file where it looked, or a deleted file makes the next
 * start bundle again.
 */
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bundleInputsOf, keepBundle, readKeptBundle } from '../../../src/workers/workflowBundleCache';

let dir: string;
let source: string;
let lookedFor: string;
let kept: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-cache-'));
  source = path.join(dir, 'job.ts');
  lookedFor = path.join(dir, 'job', 'index.ts');
  kept = path.join(dir, 'kept');
  writeFileSync(source, 'export const step = 1;\n');
  keepBundle(kept, '/* bundle */', bundleInputsOf([source], [lookedFor]));
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the kept workflow bundle', () => {
  it('is taken while nothing it was made of changed', () => {
    expect(readKeptBundle(kept)).toBe('/* bundle */');
  });

  it('is not taken once a file it was made of changed', () => {
    writeFileSync(source, 'export const step = 2;\n');
    expect(readKeptBundle(kept)).toBeUndefined();
  });

  it('is not taken once a file it was made of is gone', () => {
    unlinkSync(source);
    expect(readKeptBundle(kept)).toBeUndefined();
  });

  it('is not taken once a path the bundler looked for exists (a file that would now be resolved instead)', () => {
    mkdirSync(path.dirname(lookedFor));
    writeFileSync(lookedFor, 'export const other = true;\n');
    expect(readKeptBundle(kept)).toBeUndefined();
  });

  it('is not there before one was kept', () => {
    expect(readKeptBundle(path.join(dir, 'nothing-kept'))).toBeUndefined();
  });
});
