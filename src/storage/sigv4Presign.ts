import crypto from 'node:crypto';

/**
 * AWS Signature V4 query-string presigning for S3-compatible storage.
 *
 * The `minio` client deliberately leaves `Content-Type` out of the signed headers of a presigned URL. Uploads must be
 * bound to their declared type, so this signer adds exactly the headers given in `signedHeaders` (plus `host`) and
 * nothing else: no checksum or content-length parameters, which the uploader could not reproduce.
 */
export interface PresignRequest {
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  /** Base URL of the storage endpoint, e.g. `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  key: string;
  region: string;
  accessKey: string;
  secretKey: string;
  /** With temporary (STS) credentials: their session token, signed into the URL. */
  sessionToken?: string;
  expirySeconds: number;
  /** Headers the client must send verbatim (names are lower-cased). */
  signedHeaders?: Record<string, string>;
  /** Extra query parameters, e.g. `response-content-disposition`. */
  query?: Record<string, string>;
  requestDate?: Date;
}

const MAX_EXPIRY_SECONDS = 7 * 24 * 60 * 60;

/** RFC 3986 encoding as S3 expects it: every byte except unreserved characters. */
export function uriEscape(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function escapePath(key: string): string {
  return key.split('/').map(uriEscape).join('/');
}

function hmac(key: crypto.BinaryLike, data: string): Buffer {
  return crypto.createHmac('sha256', key).update(data).digest();
}

function amzDate(date: Date): { long: string; short: string } {
  const long = date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { long, short: long.slice(0, 8) };
}

export function presignUrl(req: PresignRequest): string {
  if (!Number.isInteger(req.expirySeconds) || req.expirySeconds < 1 || req.expirySeconds > MAX_EXPIRY_SECONDS) {
    throw new RangeError(`expirySeconds must be an integer between 1 and ${MAX_EXPIRY_SECONDS}`);
  }
  const base = new URL(req.endpoint);
  const host = base.host; // includes a non-default port, as HTTP clients send it
  const { long, short } = amzDate(req.requestDate ?? new Date());
  const scope = `${short}/${req.region}/s3/aws4_request`;

  const headers: Record<string, string> = { host };
  for (const [name, value] of Object.entries(req.signedHeaders ?? {})) headers[name.toLowerCase()] = value.trim();
  const headerNames = Object.keys(headers).sort();
  const canonicalHeaders = headerNames.map((h) => `${h}:${headers[h]}\n`).join('');
  const signedHeaderList = headerNames.join(';');

  const query: Record<string, string> = {
    ...(req.query ?? {}),
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${req.accessKey}/${scope}`,
    'X-Amz-Date': long,
    'X-Amz-Expires': String(req.expirySeconds),
    'X-Amz-SignedHeaders': signedHeaderList,
    ...(req.sessionToken === undefined ? {} : { 'X-Amz-Security-Token': req.sessionToken }),
  };
  const canonicalQuery = Object.keys(query)
    .map((k) => [uriEscape(k), uriEscape(query[k])] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

  const basePath = base.pathname.replace(/\/$/, '');
  const canonicalUri = `${basePath}/${uriEscape(req.bucket)}/${escapePath(req.key)}`;
  const canonicalRequest = [
    req.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaderList,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    long,
    scope,
    crypto.createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${req.secretKey}`, short), req.region), 's3'), 'aws4_request');
  const signature = crypto.createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return `${base.protocol}//${host}${canonicalUri}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
