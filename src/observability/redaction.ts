/**
 * What stays out of logs and traces: file ids, since the id alone reads the file (`GET /v1/files/<fileId>` answers
 * anyone, docs/security.md), credentials carried in a query string (a signed events URL's `token`, which reads a
 * job's events; a Cog webhook's `secret`, which ends a job; a presigned URL's signature), and storage object keys,
 * which hold file ids and job ids.
 */
import { replaceFileIds } from '../shared/fileIds';

/** `/v1/files/<anything>` and every well-formed file id elsewhere (`/v1/uploads/<fileId>`, object keys) → `:fileId`. */
export function redactFileIds(text: string): string {
  return replaceFileIds(text.replace(/\/v1\/files\/[^/?#\s]+/g, '/v1/files/:fileId'), ':fileId');
}

/**
 * Names of query parameters whose value is a credential, compared without case: our events URL's `token` and Cog
 * webhook's `secret`, and what other services sign URLs with (`X-Amz-Signature`, `X-Amz-Security-Token`,
 * `X-Goog-Credential`, Azure's `sig`, `api_key`, `access_token`, `password`).
 */
const CREDENTIAL_NAME = /secret|token|signature|password|passwd|credential|authorization|api[-_.]?key|(?:^|[-_.])key$|^(?:sig|auth)$/i;

const PARAM_NAME = '[A-Za-z0-9_.\\-]+';
/** `name=value` after the start of a query (`?`, `&`, or the start of the text, as in a span's `url.query`). */
const PLAIN_PARAM = new RegExp(`(^|[?&])(${PARAM_NAME})=([^&#\\s]*)`, 'g');
/** The same percent-encoded, in a URL that is itself a query value (`?next=https%3A%2F%2F…%3Fsecret%3D…`). */
const ENCODED_PARAM = new RegExp(`(%3F|%26)(${PARAM_NAME})%3D((?:(?!%26)[^&#\\s])*)`, 'gi');

/** `true` when a query parameter of this name carries a credential. */
export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

/** The value of every credential parameter of a query or URL (`secret=…`, `token=…`, `X-Amz-Signature=…`) → `:redacted`. */
export function redactCredentials(text: string): string {
  const redact = (whole: string, start: string, name: string, separator: string) => (isCredentialParam(name) ? `${start}${name}${separator}:redacted` : whole);
  return text
    .replace(PLAIN_PARAM, (whole, start: string, name: string) => redact(whole, start, name, '='))
    .replace(ENCODED_PARAM, (whole, start: string, name: string) => redact(whole, start, name, '%3D'));
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
