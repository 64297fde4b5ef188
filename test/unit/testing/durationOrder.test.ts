/**
 * The order of a run: the fast group first, then within a group the longest recorded files first whatever their
 * project, a file with no record before any; and the record a run writes keeps the figures of files it did not run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { DURATIONS_FILE, readDurations, writeDurations } from '../../support/durations';
import { DurationSequencer } from '../../support/durationSequencer';

const root = path.dirname(path.dirname(DURATIONS_FILE));

function spec(file: string, groupOrder: number): TestSpecification {
  return { moduleId: path.join(root, file), project: { config: { sequence: { groupOrder } } } } as unknown as TestSpecification;
}

describe('the duration order', () => {
  it('runs the fast group first, then the longest recorded files of any project, unrecorded ones before them', async () => {
    const recorded = readDurations();
    const known = Object.keys(recorded).filter((file) => file.startsWith('test/integration/') || file.startsWith('test/system/'));
    const [longest, shortest] = [...known].sort((a, b) => recorded[b] - recorded[a]).filter((_, i, all) => i === 0 || i === all.length - 1);
    expect(recorded[longest]).toBeGreaterThan(recorded[shortest]);
    const sequencer = new DurationSequencer({ config: { root } } as unknown as Vitest);
    const files = [spec(shortest, 1), spec('test/unit/some/unit.test.ts', 0), spec(longest, 1), spec('test/integration/not/recorded.test.ts', 1)];
    const order = (await sequencer.sort(files)).map((s) => path.relative(root, s.moduleId));
    expect(order).toEqual(['test/unit/some/unit.test.ts', 'test/integration/not/recorded.test.ts', longest, shortest]);
  });

  describe('the record', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'durations-'));
    const file = path.join(dir, 'durations.json');
    afterEach(() => fs.rmSync(file, { force: true }));

    it('replaces the figures of the files measured and keeps the others, sorted by file', () => {
      writeDurations({ 'test/b.test.ts': 2, 'test/a.test.ts': 1 }, file);
      writeDurations({ 'test/b.test.ts': 5 }, file);
      expect(fs.readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ 'test/a.test.ts': 1, 'test/b.test.ts': 5 }, null, 2)}\n`);
    });
  });
});
