import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Bytes from the system's CSPRNG are drawn 4 KB at a time and handed out in order, each byte once (as Node's own
 * `randomUUID` does): one `randomBytes` call costs 10–15 µs in a request (OpenSSL, little of it in cache), and every
 * request makes an id.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function pooledRandomBytes(size: number): Buffer {
  if (poolOffset + size > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, size));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + size);
  poolOffset += size;
  return bytes;
}

/** Random base62 string; `length` 22 carries about 131 bits. */
export function randomBase62(length: number): string {
  const bytes = pooledRandomBytes(length * 2);
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
