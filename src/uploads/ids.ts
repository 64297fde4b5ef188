import { newId } from '../lib/ids';

/** 22 base62 characters carry about 131 random bits. */
const FILE_ID_SOURCE = 'file_[0-9A-Za-z]{22}';
const FILE_ID_PATTERN = new RegExp(`^${FILE_ID_SOURCE}$`);

/** An unguessable upload id: `file_` + 22 random base62 characters. */
export function newFileId(): string {
  return newId('file', 22);
}

export function isFileId(value: string): boolean {
  return FILE_ID_PATTERN.test(value);
}

/** `text` with every file id in it (in a path, a URL, an object key) replaced by `replacement`. */
export function replaceFileIds(text: string, replacement: string): string {
  return text.replace(new RegExp(FILE_ID_SOURCE, 'g'), replacement);
}

/** Objects are grouped by account so an account's uploads can be removed by prefix. */
export function uploadObjectKey(accountId: string, fileId: string): string {
  return `${accountId}/${fileId}`;
}
