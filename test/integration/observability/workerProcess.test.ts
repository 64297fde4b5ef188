/**
 * A real worker process (`src/workers/main.ts`) serves its metrics port: its own metrics and the Temporal SDK's,
 * named by Prometheus conventions, in one scrape.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scrape, type Sample } from '../../support/prometheusText';
import { builtArgs } from '../../support/build';

let child: ChildProcess;
let samples: Sample[];
let metricsUrl: string;

beforeAll(async () => {
  child = spawn(process.execPath, builtArgs('src/workers/main.ts', ['--workflows']), {
    env: { ...process.env, METRICS_PORT: '0', TEMPORAL_TASK_QUEUE_PREFIX: `metrics-${randomUUID()}-`, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  metricsUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the worker did not report its metrics URL within 90 s')), 90_000);
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const line = buffered.split('\n').find((l) => l.includes('"metrics served"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line).metrics);
      }
    });
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code}`)));
  });
  // The SDK's exporter reports its worker metrics once the pollers are up.
  const deadline = Date.now() + 30_000;
  do {
    samples = await scrape(metricsUrl);
    if (samples.some((s) => s.name === 'temporal_num_pollers')) break;
    await new Promise((r) => setTimeout(r, 500));
  } while (Date.now() < deadline);
  const out = path.join(process.cwd(), 'test-output', 'metrics');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'worker-metric-names.txt'), `${[...new Set(samples.map((s) => s.name))].sort().join('\n')}\n`);
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  }
});

describe('worker metrics port', () => {
  it('serves its own process metrics', () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(samples.find((s) => s.name === 'genmedia_process_resident_memory_bytes')?.value).toBeGreaterThan(10_000_000);
  });

  it("appends the Temporal SDK's metrics, with Prometheus-style names", () => {
    const names = new Set(samples.map((s) => s.name));
    expect([...names].filter((n) => n.startsWith('temporal_')).length).toBeGreaterThan(5);
    expect(names.has('temporal_num_pollers')).toBe(true);
    expect([...names].some((n) => n.startsWith('temporal_') && n.endsWith('_total'))).toBe(true);
  });

  it('answers 404 off /metrics', async () => {
    const res = await fetch(metricsUrl.replace('/metrics', '/other'));
    expect(res.status).toBe(404);
  });
});
