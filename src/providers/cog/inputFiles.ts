/**
 * How a tenant's files reach a Cog server: never by the URL the tenant gave, since the server sits in the operator's
 * network and fetches whatever URL it is handed. The generation activity gives each file field of the route to
 * `cogFileOf` as an `InputFile` (an upload of ours read from storage, any other URL fetched through the address guard,
 * src/providers/inputFileReader.ts), which makes it a `data:` URI within the upload limits of its media kind.
 * `refuseUnguardedUrls` checks what is left: a URL in a field not known as a file (a model imported before its file
 * fields were kept) goes to the server only when the guard would let us fetch it ourselves.
 */
import { MAX_UPLOAD_BYTES, mediaKindOf } from '../../shared/media';
import { inputFileMessage } from '../../shared/jobFailures';
import { checkOutboundUrl, type Resolver } from '../../net/addressGuard';
import { ProviderError, type InputFile } from '../types';

/** A media type that can stand in a data: URI as it is. */
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9][a-z0-9.+-]*$/;

function unusable(url: string, why: string): ProviderError {
  return new ProviderError('INPUT_FETCH_FAILED', inputFileMessage(url, 'unreadable'), { retryable: false, cause: new Error(why) });
}

/** The file's bytes as a data: URI, when it is an image, video or audio within its kind's upload limit. */
export async function cogFileOf(file: InputFile, signal: AbortSignal): Promise<string> {
  const { data, contentType } = await file.read(signal);
  const kind = mediaKindOf(contentType);
  if (!kind || !MEDIA_TYPE.test(contentType)) throw unusable(file.url, `content type "${contentType}" is not an image, video or audio type`);
  if (data.length > MAX_UPLOAD_BYTES[kind]) throw unusable(file.url, `${data.length} bytes, over the ${MAX_UPLOAD_BYTES[kind]}-byte limit for ${kind}`);
  return `data:${contentType};base64,${data.toString('base64')}`;
}

export interface TenantUrlRules {
  /** Private and loopback addresses count as reachable (INPUT_FETCH_ALLOW_PRIVATE: development and tests). */
  allowPrivate: boolean;
  resolve?: Resolver;
}

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/** Throws INPUT_FETCH_FAILED for the first http(s) URL in the input that the address guard would not fetch. */
export async function refuseUnguardedUrls(input: unknown, rules: TenantUrlRules): Promise<void> {
  for (const value of stringsIn(input)) {
    if (!/^https?:\/\//i.test(value)) continue;
    const check = await checkOutboundUrl(value, { allowPrivate: rules.allowPrivate, resolve: rules.resolve, schemes: ['http:', 'https:'], what: 'input file' });
    if (!check.ok) throw unusable(value, check.reason);
  }
}
