import type { RequestHandler } from 'express';
import { ApiError } from '../../shared/errors';

const NUL = '\u0000';

/** The path of the first string (or object key) holding a NUL character, or undefined. */
export function findNul(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      const child = path ? `${path}.${key}` : key;
      if (key.includes(NUL)) return child;
      const found = findNul(inner, child);
      if (found) return found;
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

/**
 * No identifier, field or text of ours can hold a NUL character (PostgreSQL text cannot store one), so a
 * request carrying one anywhere is refused up front with the place named, instead of failing deep inside.
 */
export function rejectNul(): RequestHandler {
  return (req, _res, next) => {
    const where =
      (decodedPath(req.path).includes(NUL) ? 'path' : undefined) ??
      findNul(req.query, 'query') ??
      findNul(req.body, 'body');
    if (where) {
      throw new ApiError('VALIDATION_ERROR', `${where} must not contain NUL (\\u0000) characters`, [
        { path: where, message: 'must not contain NUL (\\u0000) characters' },
      ]);
    }
    next();
  };
}
