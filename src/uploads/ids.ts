import { newId } from '../lib/ids';
import { FILE_ID_RANDOM_CHARS } from '../shared/fileIds';

/** An unguessable upload id: `file_` + 22 random base62 characters (the form src/shared/fileIds.ts checks). */
export function newFileId(): string {
  return newId('file', FILE_ID_RANDOM_CHARS);
}

/** Objects are grouped by account so an account's uploads can be removed by prefix. */
export function uploadObjectKey(accountId: string, fileId: string): string {
  return `${accountId}/${fileId}`;
}
