import { describe, expect, it } from 'vitest';
import { requestFileId } from '../../../../src/dialects/openai/requestFiles';
import { isFileId } from '../../../../src/shared/fileIds';

const request = { accountId: 'acc_1', idempotencyKey: 'key-1', kind: 'edit', index: 0, data: Buffer.from('png bytes') };

describe("the upload ids of a keyed request's files", () => {
  it('are file ids, the same for the same request and different for another key, place, file, account or secret', () => {
    const id = requestFileId('secret-secret-secret', request)!;
    expect(isFileId(id)).toBe(true);
    expect(requestFileId('secret-secret-secret', { ...request })).toBe(id);
    const others = [
      requestFileId('secret-secret-secret', { ...request, idempotencyKey: 'key-2' }),
      requestFileId('secret-secret-secret', { ...request, index: 1 }),
      requestFileId('secret-secret-secret', { ...request, kind: 'video' }),
      requestFileId('secret-secret-secret', { ...request, data: Buffer.from('other bytes') }),
      requestFileId('secret-secret-secret', { ...request, accountId: 'acc_2' }),
      requestFileId('another-secret-value', request),
    ];
    expect(new Set([id, ...others]).size).toBe(7);
  });

  it('are left to the upload service (random) without an Idempotency-Key', () => {
    expect(requestFileId('secret-secret-secret', { ...request, idempotencyKey: undefined })).toBeUndefined();
  });
});
