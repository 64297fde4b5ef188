/** The console's reading of a manifest report: genmedia's own assertion, and nothing from an assertion of another shape. */
import { describe, expect, it } from 'vitest';
import { genmediaAssertionIn } from '../../../console/src/pages/provenanceFacts';
import { manifestDefinition } from '../../../src/provenance/manifest';
import { GENMEDIA_ASSERTION } from '../../../src/shared/provenance';

const ours = {
  jobId: 'job_abc',
  output: 2,
  model: 'pixelforge/forge-pro/text-to-image',
  version: '1.0.0',
  route: { provider: 'openai', upstreamModel: 'gpt-image-2' },
  createdAt: '2026-11-27T08:00:00.000Z',
};

describe('genmediaAssertionIn', () => {
  it('reads the assertion the service writes', () => {
    const signedAt = new Date(ours.createdAt);
    const written = manifestDefinition(
      { jobId: ours.jobId, output: ours.output, modelSlug: ours.model, version: ours.version, route: ours.route, signedAt },
      { name: 'genmedia', version: 'test' },
      'image/png',
    );
    expect(genmediaAssertionIn(written.assertions)).toEqual(ours);
  });

  it("finds genmedia's assertion among the others", () => {
    const assertions = [{ label: 'c2pa.actions.v2', data: { actions: [] } }, { label: GENMEDIA_ASSERTION, data: ours }];
    expect(genmediaAssertionIn(assertions)).toEqual(ours);
  });

  it('keeps a route without an upstream model as it is', () => {
    const data = { ...ours, route: { provider: 'pixelforge' } };
    expect(genmediaAssertionIn([{ label: GENMEDIA_ASSERTION, data }])?.route).toEqual({ provider: 'pixelforge' });
  });

  it.each([
    ['no assertion of ours', [{ label: 'c2pa.actions', data: {} }]],
    ['data that is not an object', [{ label: GENMEDIA_ASSERTION, data: 'job_abc' }]],
    ['a job id that is not text', [{ label: GENMEDIA_ASSERTION, data: { ...ours, jobId: 7 } }]],
    ['no route', [{ label: GENMEDIA_ASSERTION, data: { ...ours, route: undefined } }]],
    ['a route without a provider', [{ label: GENMEDIA_ASSERTION, data: { ...ours, route: {} } }]],
  ])('answers null for %s', (_case, assertions) => {
    expect(genmediaAssertionIn(assertions)).toBeNull();
  });
});
