/**
 * The form of an upload's file id, `file_` and 22 base62 characters: what the API checks a path's id against and what
 * logs and traces redact (src/observability/redaction.ts). Pure. src/uploads/ids.ts makes the ids.
 */

/** 22 base62 characters carry about 131 random bits. */
export const FILE_ID_RANDOM_CHARS = 22;
const FILE_ID_SOURCE = `file_[0-9A-Za-z]{${FILE_ID_RANDOM_CHARS}}`;
const FILE_ID_PATTERN = new RegExp(`^${FILE_ID_SOURCE}$`);

export function isFileId(value: string): boolean {
  return FILE_ID_PATTERN.test(value);
}

/** `text` with every file id in it (in a path, a URL, an object key) replaced by `replacement`. */
export function replaceFileIds(text: string, replacement: string): string {
  return text.replace(new RegExp(FILE_ID_SOURCE, 'g'), replacement);
}
