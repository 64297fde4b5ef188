/** Every Temporal the project starts gets the same fairness values: dev server, server on PostgreSQL, compose. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const fairness = require('../../../scripts/lib/temporalFairness') as {
  FAIRNESS_DYNAMIC_CONFIG: Record<string, unknown>;
  devServerArgs(): string[];
  dynamicConfigYaml(): string;
};

describe('Temporal fairness configuration', () => {
  it('turns on the new matcher with fairness and one read and one write partition per task queue', () => {
    expect(fairness.FAIRNESS_DYNAMIC_CONFIG).toEqual({
      'matching.useNewMatcher': true,
      'matching.enableFairness': true,
      'matching.numTaskqueueReadPartitions': 1,
      'matching.numTaskqueueWritePartitions': 1,
    });
  });

  it('gives the dev server each value as --dynamic-config-value KEY=JSON', () => {
    expect(fairness.devServerArgs()).toEqual([
      '--dynamic-config-value', 'matching.useNewMatcher=true',
      '--dynamic-config-value', 'matching.enableFairness=true',
      '--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1',
      '--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1',
    ]);
  });

  it("writes the same values into the server's dynamic configuration, as the compose stack's file has them", () => {
    const yaml = fairness.dynamicConfigYaml();
    expect(yaml).toContain('matching.enableFairness:\n  - value: true\n');
    const compose = readFileSync(path.join(__dirname, '../../../deploy/temporal/dynamicconfig.yaml'), 'utf8');
    expect(compose).toContain(yaml);
  });
});
