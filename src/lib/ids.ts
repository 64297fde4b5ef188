import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 string; `length` 22 carries about 131 bits. */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte < 248) out += ALPHABET[byte % 62]; // 248 = 4 × 62: rejection keeps the distribution uniform
  }
  return out.length === length ? out : out + randomBase62(length - out.length);
}

/** Prefixed, unguessable identifier such as `acc_4Xk...`. */
export function newId(prefix: string, length = 22): string {
  return `${prefix}_${randomBase62(length)}`;
}
