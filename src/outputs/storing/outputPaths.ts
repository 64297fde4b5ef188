/**
 * Finds the output files in an upstream's answer, following the `upstream.outputs` paths of a catalog
 * version: `images[].url`, `video.url`, `output`, `output[]`, `data[].b64_json`,
 * `generatedVideos[].video.uri`. `[]` walks every item of an array. A value found is a URL, a data: URI,
 * bare base64 (the route's `outputContentType` names its type), or an object with a `url`.
 */
import { ProviderError } from '../../providers/types';

export type OutputLocation = { kind: 'url'; url: string } | { kind: 'inline'; data: Buffer; contentType?: string };

function walk(value: unknown, parts: string[]): unknown[] {
  if (value === undefined || value === null) return [];
  if (parts.length === 0) return Array.isArray(value) ? value : [value];
  const [head, ...rest] = parts;
  const all = head.endsWith('[]');
  const key = all ? head.slice(0, -2) : head;
  const next = key === '' ? value : typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (all) return Array.isArray(next) ? next.flatMap((item) => walk(item, rest)) : [];
  return walk(next, rest);
}

function locate(value: unknown, contentType: string | undefined): OutputLocation | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as { url?: unknown }).url === 'string') {
    return locate((value as { url: string }).url, contentType);
  }
  if (typeof value !== 'string' || value === '') return undefined;
  if (/^https?:\/\//i.test(value)) return { kind: 'url', url: value };
  const dataUri = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(value);
  if (dataUri) {
    return { kind: 'inline', data: dataUriBytes(dataUri[3], dataUri[2] !== undefined), contentType: dataUri[1] };
  }
  return { kind: 'inline', data: Buffer.from(value, 'base64'), contentType };
}

function dataUriBytes(payload: string, base64: boolean): Buffer {
  if (base64) return Buffer.from(payload, 'base64');
  try {
    return Buffer.from(decodeURIComponent(payload));
  } catch (error) {
    // The upstream's answer is broken, and will be the same on every attempt.
    throw new ProviderError('BAD_OUTPUT', 'an output data: URI has a malformed percent-encoding', { retryable: false, cause: error });
  }
}

/** Every output in `result` at the given paths, in path order. */
export function locateOutputs(result: unknown, paths: string[], contentType?: string): OutputLocation[] {
  const found: OutputLocation[] = [];
  for (const path of paths) {
    const parts = path === '' || path === '.' ? [] : path.split('.');
    for (const value of walk(result, parts)) {
      const location = locate(value, contentType);
      if (location) found.push(location);
    }
  }
  return found;
}
