/**
 * The committed record of how long each test file takes (test/durations.json, seconds by file), so that a run, a fresh
 * clone's first among them, starts the longest files first and no long file is left to run alone at the end.
 * `RECORD_TEST_DURATIONS=1 npm test` writes it again from that run (docs/testing.md).
 */
import fs from 'node:fs';
import path from 'node:path';

export const DURATIONS_FILE = path.resolve('test', 'durations.json');

export type Durations = Record<string, number>;

export function readDurations(file = DURATIONS_FILE): Durations {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Durations;
  } catch {
    return {};
  }
}

/** The files of `measured` replace their old figures; files of other projects, not run this time, keep theirs. */
export function writeDurations(measured: Durations, file = DURATIONS_FILE): void {
  const merged: Durations = { ...readDurations(file), ...measured };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([a], [b]) => (a < b ? -1 : 1)));
  fs.writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}
