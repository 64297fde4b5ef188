/** Longest accepted filename, in characters (the common filesystem limit). */
export const MAX_FILENAME_LENGTH = 255;

// C0/C1 control characters, plus Unicode bidirectional overrides that disguise a name's extension.
const FORBIDDEN_CHARACTERS = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** Why `filename` is not acceptable for an upload, or null when it is. */
export function filenameProblem(filename: string): string | null {
  if (filename.trim().length === 0) return 'filename must not be empty';
  if ([...filename].length > MAX_FILENAME_LENGTH) return `filename must be at most ${MAX_FILENAME_LENGTH} characters`;
  if (FORBIDDEN_CHARACTERS.test(filename)) return 'filename must not contain control characters';
  if (/[/\\]/.test(filename) || filename === '.' || filename === '..') {
    return 'filename must be a plain file name, not a path';
  }
  return null;
}
