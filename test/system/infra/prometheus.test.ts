/**
 * The compose stack's Prometheus configuration and alerting rules, checked by promtool (built by the test
 * bootstrap): valid configuration, valid rules, and the rules' unit tests (deploy/prometheus/alerts.test.yml).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const DEPLOY = path.resolve(__dirname, '../../../deploy/prometheus');

function promtool(...args: string[]) {
  const binary = process.env.PROMTOOL_CLI;
  if (!binary) throw new Error('PROMTOOL_CLI is not set (run through npm test, whose bootstrap builds promtool)');
  return spawnSync(binary, args, { cwd: DEPLOY, encoding: 'utf8' });
}

describe('Prometheus configuration', () => {
  it('is valid', () => {
    const run = promtool('check', 'config', '--syntax-only', 'prometheus.yml');
    expect(run.status, run.stderr + run.stdout).toBe(0);
  });

  it('has valid alerting rules', () => {
    const run = promtool('check', 'rules', 'alerts.yml');
    expect(run.status, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('SUCCESS: 4 rules found');
  });

  it("fires each alert when it should and not otherwise (the rules' unit tests)", () => {
    const run = promtool('test', 'rules', 'alerts.test.yml');
    expect(run.status, run.stderr + run.stdout).toBe(0);
    expect(run.stdout).toContain('SUCCESS');
  });
});
