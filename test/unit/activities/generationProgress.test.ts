import { describe, expect, it } from 'vitest';
import { outputKey } from '../../../src/outputs/storing/outputStore';
import { estimateCompletion } from '../../../activities/generation/progress';

describe('estimateCompletion', () => {
  const start = Date.parse('2030-01-01T00:00:00Z');

  it('uses the expected duration before any progress', () => {
    expect(estimateCompletion(start, start + 1000, 0, 30).toISOString()).toBe('2030-01-01T00:00:30.000Z');
  });

  it('extrapolates linearly from progress', () => {
    // 25% after 10 s → 30 s more.
    expect(estimateCompletion(start, start + 10_000, 25, 30).toISOString()).toBe('2030-01-01T00:00:40.000Z');
    expect(estimateCompletion(start, start + 10_000, 100, 30).toISOString()).toBe('2030-01-01T00:00:10.000Z');
  });

  it('never answers a time already past when the expected duration ran out without progress', () => {
    expect(estimateCompletion(start, start + 60_000, 0, 30).getTime()).toBe(start + 60_000);
  });
});

describe('outputKey', () => {
  it('keeps every output of a job under its id with an extension for the type', () => {
    expect(outputKey('job_1', 0, 'image/png')).toBe('job_1/output-1.png');
    expect(outputKey('job_1', 1, 'video/mp4')).toBe('job_1/output-2.mp4');
    expect(outputKey('job_1', 0, 'application/x-unknown')).toBe('job_1/output-1.bin');
  });
});
