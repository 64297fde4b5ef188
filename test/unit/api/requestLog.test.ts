import { describe, expect, it } from 'vitest';
import { loggablePath } from '../../../src/api/middleware/requestLog';

describe('loggablePath', () => {
  it('keeps file ids, which are bearer credentials, out of the request log', () => {
    expect(loggablePath('/v1/files/file_3kTMd9Qx0vLw7bYz1aR5nC')).toBe('/v1/files/:fileId');
    expect(loggablePath('/v1/files/not-even-an-id')).toBe('/v1/files/:fileId');
    // The upload's status route carries the same id.
    expect(loggablePath('/v1/uploads/file_3kTMd9Qx0vLw7bYz1aR5nC')).toBe('/v1/uploads/:fileId');
    expect(loggablePath('/v1/uploads/presign')).toBe('/v1/uploads/presign');
    expect(loggablePath('/v1/jobs/job_1')).toBe('/v1/jobs/job_1');
  });
});
