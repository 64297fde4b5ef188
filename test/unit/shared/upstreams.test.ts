/**
 * The upstream mapping under its name and its earlier one: runs started before the rename carry it as `route` in
 * their upstream plans and in the generation activities' inputs, and both are read as `mapping`.
 */
import { describe, expect, it } from 'vitest';
import { mappingOf, withMapping, type RecordedMapping, type UpstreamMapping } from '../../../src/shared/upstreams';

const FLUX: UpstreamMapping = { model: 'fal-ai/flux/dev', input: { prompt: '$prompt' }, outputs: ['images[].url'] };
const KLING: UpstreamMapping = { model: 'fal-ai/kling-video', input: { prompt: '$prompt' }, outputs: ['video.url'] };

describe('mappingOf', () => {
  it('reads a plan under its name and under its earlier one, `route`', () => {
    expect(mappingOf({ mapping: FLUX })).toBe(FLUX);
    expect(mappingOf({ route: FLUX })).toBe(FLUX);
  });

  it('prefers the name to the earlier one when both are there', () => {
    expect(mappingOf({ mapping: FLUX, route: KLING })).toBe(FLUX);
  });

  it('is undefined for a plan without one, and for no plan', () => {
    expect(mappingOf({})).toBeUndefined();
    expect(mappingOf(undefined)).toBeUndefined();
  });
});

describe('withMapping', () => {
  it('moves a mapping recorded as `route` to `mapping`, keeping the rest of the input', () => {
    const recorded = { jobId: 'job_1', attemptId: 'job_1.1', upstreamId: 'req-1', route: FLUX };
    const input = withMapping(recorded);
    expect(input).toEqual({ jobId: 'job_1', attemptId: 'job_1.1', upstreamId: 'req-1', mapping: FLUX });
    expect(input).not.toHaveProperty('route');
  });

  it('leaves an input under the new name as it is, and one without a mapping without one', () => {
    expect(withMapping({ jobId: 'job_1', mapping: FLUX })).toEqual({ jobId: 'job_1', mapping: FLUX });
    expect(withMapping({ jobId: 'job_1', route: KLING, mapping: FLUX })).toEqual({ jobId: 'job_1', mapping: FLUX });
    const bare: { jobId: string } & RecordedMapping = { jobId: 'job_1' };
    const none = withMapping(bare);
    expect(none).toEqual({ jobId: 'job_1' });
    expect(none).not.toHaveProperty('mapping');
  });
});
