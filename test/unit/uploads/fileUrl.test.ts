import { describe, expect, it } from 'vitest';
import { fileUrlFor, matchFileUrl } from '../../../src/uploads/fileUrl';
import { isFileId } from '../../../src/shared/fileIds';
import { newFileId, uploadObjectKey } from '../../../src/uploads/ids';

const base = 'https://api.example.com';

describe('file ids', () => {
  it('are file_ + 22 base62 characters and do not repeat', () => {
    const ids = new Set(Array.from({ length: 1000 }, newFileId));
    expect(ids.size).toBe(1000);
    for (const id of ids) expect(isFileId(id)).toBe(true);
    expect(isFileId('file_short')).toBe(false);
    expect(isFileId('file_' + 'a'.repeat(21) + '-')).toBe(false);
  });

  it('are grouped per account in the object key', () => {
    expect(uploadObjectKey('acc_1', 'file_x')).toBe('acc_1/file_x');
  });
});

describe('file URLs', () => {
  const id = newFileId();

  it('round-trip through fileUrlFor and matchFileUrl', () => {
    expect(fileUrlFor(`${base}/`, id)).toBe(`${base}/v1/files/${id}`);
    expect(matchFileUrl(base, fileUrlFor(base, id))).toEqual({ kind: 'ours', fileId: id });
  });

  it('respect a base URL with a path prefix', () => {
    const prefixed = 'https://example.com/api';
    expect(matchFileUrl(prefixed, `${prefixed}/v1/files/${id}`)).toEqual({ kind: 'ours', fileId: id });
    expect(matchFileUrl(prefixed, `https://example.com/v1/files/${id}`)).toEqual({ kind: 'other' });
  });

  it('report malformed URLs on our files path as ours-invalid', () => {
    expect(matchFileUrl(base, `${base}/v1/files/nope`)).toEqual({ kind: 'ours-invalid' });
    expect(matchFileUrl(base, `${base}/v1/files/${id}/extra`)).toEqual({ kind: 'ours-invalid' });
    expect(matchFileUrl(base, `${base}/v1/files/${id}?x=1`)).toEqual({ kind: 'ours-invalid' });
  });

  it('treat other hosts, schemes and non-URLs as other', () => {
    expect(matchFileUrl(base, `https://cdn.example.org/v1/files/${id}`)).toEqual({ kind: 'other' });
    expect(matchFileUrl(base, `http://api.example.com/v1/files/${id}`)).toEqual({ kind: 'other' });
    expect(matchFileUrl(base, 'a cat on a mat')).toEqual({ kind: 'other' });
  });
});
