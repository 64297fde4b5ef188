/**
 * Orders the files of a run by their recorded durations, longest first, across the projects of each group: with two
 * files at a time, the run ends soonest when the long ones start early. A file with no record yet starts first, since
 * nothing says it is short. vitest's own order uses its cache of the last run on this machine, which a fresh clone has
 * not got.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { readDurations } from './durations';

export class DurationSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const durations = readDurations();
    const root = this.ctx.config.root;
    const durationOf = (spec: TestSpecification) => durations[path.relative(root, spec.moduleId).split(path.sep).join('/')] ?? Number.POSITIVE_INFINITY;
    return [...files].sort(
      (a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || durationOf(b) - durationOf(a),
    );
  }
}
