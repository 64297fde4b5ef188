import type { RequestHandler } from 'express';
import { ApiError } from '../apiError';

const NUL = '\u0000';

/** No request of ours nests deeper; deeper JSON is refused before anything walks it recursively. */
export const MAX_JSON_DEPTH = 64;

/**
 * The path of the first string (or object key) holding a NUL character, or undefined. Walks without recursion and
 * throws VALIDATION_ERROR when `value` nests more than MAX_JSON_DEPTH levels.
 */
export function findNul(value: unknown, path: string): string | undefined {
  const pending: { value: unknown; path: string; depth: number }[] = [{ value, path, depth: 0 }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (typeof next.value === 'string') {
      if (next.value.includes(NUL)) return next.path;
      continue;
    }
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth >= MAX_JSON_DEPTH) {
      throw new ApiError('VALIDATION_ERROR', `${path || 'the request'} is nested more than ${MAX_JSON_DEPTH} levels deep`);
    }
    // Pushed in reverse, so the first NUL in document order is the one reported.
    const children = Array.isArray(next.value)
      ? next.value.map((inner, i) => ({ key: undefined, value: inner, path: `${next.path}[${i}]` }))
      : Object.entries(next.value).map(([key, inner]) => ({ key, value: inner, path: next.path ? `${next.path}.${key}` : key }));
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      pending.push({ value: child.value, path: child.path, depth: next.depth + 1 });
      if (child.key?.includes(NUL)) pending.push({ value: NUL, path: child.path, depth: next.depth + 1 });
    }
  }
  return undefined;
}

function decodedPath(rawPath: string): string {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'The URL path has malformed percent-encoding');
  }
}

function refuseNulAt(where: string | undefined): void {
  if (!where) return;
  throw new ApiError('VALIDATION_ERROR', `${where} must not contain NUL (\\u0000) characters`, [
    { path: where, message: 'must not contain NUL (\\u0000) characters' },
  ]);
}

/**
 * No identifier, field or text of ours can hold a NUL character (PostgreSQL text cannot store one), so a
 * request carrying one anywhere is refused up front with the place named, instead of failing deep inside.
 * This checks the path and the query of every request; `rejectNulInBody` checks a body once a route has read it.
 */
export function rejectNul(): RequestHandler {
  return (req, _res, next) => {
    // Only percent-encoding can put a NUL into the decoded path or query (or make the path undecodable), and the
    // app's query parser nests nothing: a URL without `%` (nor a raw NUL) has nothing to check.
    if (!req.url.includes('%') && !req.url.includes(NUL)) {
      next();
      return;
    }
    refuseNulAt((decodedPath(req.path).includes(NUL) ? 'path' : undefined) ?? findNul(req.query, 'query'));
    next();
  };
}

export function rejectNulInBody(): RequestHandler {
  return (req, _res, next) => {
    refuseNulAt(findNul(req.body, 'body'));
    next();
  };
}
