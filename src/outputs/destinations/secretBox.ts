/**
 * Encryption at rest of destination secrets: AES-256-GCM under the deployment's DESTINATION_SECRET_KEY, a fresh
 * 96-bit nonce per secret, and the account id as additional data, so a sealed secret copied to another account's row
 * does not open there.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** Names the key without revealing it, stored beside each sealed secret: a secret sealed under another key is told apart. */
  readonly keyId: string;
  /** nonce ‖ ciphertext ‖ tag */
  seal(plaintext: string, accountId: string): Buffer;
  /** Throws when the sealed bytes were not sealed with this key for this account. */
  open(sealed: Uint8Array, accountId: string): string;
}

function additionalData(accountId: string): Buffer {
  return Buffer.from(`account-destination:${accountId}`, 'utf8');
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('a destination secret key is 32 bytes');
  const keyId = createHmac('sha256', key).update('destination-secret-key-id').digest('hex').slice(0, 16);
  return {
    keyId,
    seal(plaintext, accountId) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(additionalData(accountId));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]);
    },
    open(sealed, accountId) {
      const bytes = Buffer.from(sealed);
      if (bytes.length < NONCE_BYTES + TAG_BYTES) throw new Error('sealed destination secret is too short');
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
      decipher.setAAD(additionalData(accountId));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    },
  };
}
