/** What a job's outputs occupy in storage: the outputs, and the sidecar Content Credentials stored beside a WebM. */
import { describe, expect, it } from 'vitest';
import { toOutput } from '../../../../src/outputs/storing/outputStore';
import { storedOutputFootprint, type JobOutput } from '../../../../src/shared/jobs';

describe('the stored footprint of a job', () => {
  it('counts a WebM output and its sidecar manifest, bytes and objects, beside an embedded PNG', () => {
    const webm = toOutput('job_1', { path: '/tmp/signed-1.webm', contentType: 'video/webm', sizeBytes: 50_000, manifest: { embedded: false, sidecarPath: '/tmp/signed-1.webm.c2pa', sidecarSizeBytes: 4_321 } }, 0);
    const png = toOutput('job_1', { path: '/tmp/signed-2.png', contentType: 'image/png', sizeBytes: 9_000, manifest: { embedded: true } }, 1);
    expect(webm).toMatchObject({ key: 'job_1/output-1.webm', manifest: 'sidecar', manifestKey: 'job_1/output-1.webm.c2pa', manifestSizeBytes: 4_321 });
    expect(png).not.toHaveProperty('manifestSizeBytes');
    expect(storedOutputFootprint([webm, png])).toEqual({ bytes: 50_000 + 4_321 + 9_000, objects: 3 });
  });

  it('counts unsigned outputs alone', () => {
    const outputs: JobOutput[] = [
      { key: 'job_2/output-1.png', contentType: 'image/png', sizeBytes: 1_000 },
      { key: 'job_2/output-2.png', contentType: 'image/png', sizeBytes: 2_000 },
    ];
    expect(storedOutputFootprint(outputs)).toEqual({ bytes: 3_000, objects: 2 });
  });

  it('counts a sidecar recorded without its size as an object of no bytes', () => {
    const output: JobOutput = { key: 'job_3/output-1.webm', contentType: 'video/webm', sizeBytes: 7_000, manifest: 'sidecar', manifestKey: 'job_3/output-1.webm.c2pa' };
    expect(storedOutputFootprint([output])).toEqual({ bytes: 7_000, objects: 2 });
  });
});
