/**
 * With RECORD_TEST_DURATIONS=1, writes each file's wall time of the run (collecting, setting up and running it) into
 * test/durations.json, which DurationSequencer orders the next runs by.
 */
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { writeDurations, type Durations } from './durations';

export class DurationsReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (process.env.RECORD_TEST_DURATIONS !== '1') return;
    const measured: Durations = {};
    for (const module of modules) {
      const d = module.diagnostic();
      const seconds = (d.prepareDuration + d.collectDuration + d.setupDuration + d.duration) / 1000;
      measured[path.relative(module.project.config.root, module.moduleId).split(path.sep).join('/')] = Math.round(seconds * 10) / 10;
    }
    writeDurations(measured);
  }
}
