/**
 * The files of an image edit or a video request become uploads of the account. A request sent again with the same
 * Idempotency-Key must name the same uploads, or its jobs' input (and so the idempotency check of submit) would
 * differ: each file's upload id is derived from the key, the file's place and its bytes, keyed by a server secret so
 * it stays as unguessable as a random one.
 */
import { createHash, createHmac } from 'node:crypto';
import type { UploadContentType } from '../../shared/media';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** As long as a random file id: 22 base62 characters. */
const ID_LENGTH = 22;

export type StoreUpload = (
  accountId: string,
  file: { filename: string; contentType: UploadContentType; data: Buffer },
  options?: { fileId?: string },
) => Promise<{ fileUrl: string }>;

/** The upload id of the request's `index`-th file (of `kind`); undefined without an Idempotency-Key (a random id). */
export function requestFileId(
  secret: string,
  request: { accountId: string; idempotencyKey: string | undefined; kind: string; index: number; data: Buffer },
): string | undefined {
  if (request.idempotencyKey === undefined) return undefined;
  const content = createHash('sha256').update(request.data).digest('hex');
  const digest = createHmac('sha256', secret)
    .update(['openai-request-file', request.accountId, request.idempotencyKey, request.kind, String(request.index), content].join('\n'))
    .digest();
  let value = BigInt(`0x${digest.toString('hex')}`);
  let id = '';
  for (let i = 0; i < ID_LENGTH; i += 1) {
    id += BASE62[Number(value % 62n)];
    value /= 62n;
  }
  return `file_${id}`;
}
