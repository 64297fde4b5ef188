/**
 * What stays out of logs and traces: file ids, since the id alone reads the file (`GET /v1/files/<fileId>` answers
 * anyone, docs/security.md), the tokens of signed events URLs (`?token=`, which read a job's events), and storage
 * object keys, which hold file ids and job ids.
 */
import { replaceFileIds } from '../uploads/ids';

/** `/v1/files/<anything>` and every well-formed file id elsewhere (`/v1/uploads/<fileId>`, object keys) → `:fileId`. */
export function redactFileIds(text: string): string {
  return replaceFileIds(text.replace(/\/v1\/files\/[^/?#\s]+/g, '/v1/files/:fileId'), ':fileId');
}

/** The `token` parameter of a query or URL (a job's signed events URL) → `token=:token`. */
export function redactTokens(text: string): string {
  return text.replace(/(^|[?&])token=[^&#\s]*/g, '$1token=:token');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Path-style object paths and URLs of `buckets`: `/<bucket>/<key>` → `/<bucket>/:objectKey`, and the query after a
 * bucket (a presigned URL's, a listing's `prefix`) → `?:query`. The bucket alone (`HEAD /<bucket>`) stays.
 */
export function redactObjectKeys(text: string, buckets: readonly string[]): string {
  let redacted = text;
  for (const bucket of buckets) {
    const objectPath = new RegExp(`/${escapeRegExp(bucket)}(/[^?#\\s]*)?(\\?[^#\\s]*)?(?=[#\\s]|$)`, 'g');
    redacted = redacted.replace(objectPath, (whole, key: string | undefined, query: string | undefined) =>
      key === undefined && query === undefined ? whole : `/${bucket}${key === undefined ? '' : '/:objectKey'}${query === undefined ? '' : '?:query'}`,
    );
  }
  return redacted;
}
