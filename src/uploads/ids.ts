import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 128 random bits in base62 take at most 22 characters. */
const FILE_ID_BODY_LENGTH = 22;
const FILE_ID_PATTERN = /^file_[0-9A-Za-z]{22}$/;

/** An unguessable upload id: `file_` + 128 random bits in base62. */
export function newFileId(): string {
  let n = BigInt(`0x${crypto.randomBytes(16).toString('hex')}`);
  let body = '';
  while (n > 0n) {
    body = BASE62[Number(n % 62n)] + body;
    n /= 62n;
  }
  return `file_${body.padStart(FILE_ID_BODY_LENGTH, '0')}`;
}

export function isFileId(value: string): boolean {
  return FILE_ID_PATTERN.test(value);
}

/** Objects are grouped by account so an account's uploads can be removed by prefix. */
export function uploadObjectKey(accountId: string, fileId: string): string {
  return `${accountId}/${fileId}`;
}
