import { describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const testProjects = require('../../../scripts/lib/testProjects') as {
  PROJECTS: Record<string, { dir: string }>;
  projectsOfRun(args: string[]): string[];
  needsOf(names: string[]): { services: boolean; extras: boolean; temporalCli: boolean };
  testFiles(): string[];
};

const ALL = ['unit', 'workflows', 'static', 'integration', 'system'];
const { projectsOfRun, needsOf } = testProjects;

describe('what a test run needs', () => {
  it('runs every project, with the services and the test-only tools, when nothing narrows it', () => {
    expect(projectsOfRun([])).toEqual(ALL);
    expect(needsOf(projectsOfRun([]))).toEqual({ services: true, extras: true, temporalCli: true });
  });

  it('needs no services and no test-only tools for the unit loop, only the Temporal CLI for the workflow tests', () => {
    expect(needsOf(projectsOfRun(['--project', 'unit', '--project', 'workflows']))).toEqual({ services: false, extras: false, temporalCli: true });
    expect(needsOf(projectsOfRun(['--project=unit']))).toEqual({ services: false, extras: false, temporalCli: false });
  });

  it('starts the services without the test-only tools for the integration project', () => {
    expect(needsOf(projectsOfRun(['--project', 'integration']))).toEqual({ services: true, extras: false, temporalCli: true });
  });

  it('goes by the folders of the files a filter selects, as vitest matches them', () => {
    expect(projectsOfRun(['test/unit/scripts/reexec.test.ts'])).toEqual(['unit']);
    expect(projectsOfRun(['test/integration/jobs/', '-t', 'cancel'])).toEqual(['integration']);
    expect(projectsOfRun(['fuzz'])).toEqual(['system']);
    expect(projectsOfRun(['--project', 'unit', '--project', 'workflows', 'test/unit/scripts'])).toEqual(['unit']);
  });

  it('takes everything when it cannot tell: a project pattern, or a filter that matches no file', () => {
    expect(projectsOfRun(['--project', '!system'])).toEqual(ALL);
    expect(projectsOfRun(['no-such-test-file'])).toEqual(ALL);
  });

  it('puts every test file in exactly one project', () => {
    const dirs = Object.values(testProjects.PROJECTS).map((p) => `${p.dir}/`);
    const unplaced = testProjects.testFiles().filter((file) => dirs.filter((dir) => file.startsWith(dir)).length !== 1);
    expect(unplaced).toEqual([]);
  });
});
