import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config';
import { createSecretBox } from '../../../../src/outputs/destinations/secretBox';

describe('destination secrets at rest', () => {
  const key = randomBytes(32);
  const box = createSecretBox(key);

  it('seals with AES-256-GCM: the clear text is not in the sealed bytes, and opens again for the same account', () => {
    const sealed = box.seal('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'acc_1');
    expect(sealed.includes(Buffer.from('wJalrXUtnFEMI'))).toBe(false);
    expect(sealed.length).toBe(12 + 40 + 16);
    expect(box.open(sealed, 'acc_1')).toBe('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  });

  it('uses a fresh nonce each time', () => {
    expect(box.seal('same', 'acc_1').equals(box.seal('same', 'acc_1'))).toBe(false);
  });

  it("refuses another account's sealed secret, another key's, and altered bytes", () => {
    const sealed = box.seal('secret', 'acc_1');
    expect(() => box.open(sealed, 'acc_2')).toThrow();
    expect(() => createSecretBox(randomBytes(32)).open(sealed, 'acc_1')).toThrow();
    const altered = Buffer.from(sealed);
    altered[14] ^= 1;
    expect(() => box.open(altered, 'acc_1')).toThrow();
  });

  it('names its key by a digest that is stable and differs between keys', () => {
    expect(createSecretBox(key).keyId).toBe(box.keyId);
    expect(createSecretBox(randomBytes(32)).keyId).not.toBe(box.keyId);
    expect(box.keyId).not.toContain(key.toString('hex').slice(0, 8));
  });
});

describe('DESTINATION_SECRET_KEY', () => {
  const key = randomBytes(32);

  it('takes 32 bytes in base64 or hex', () => {
    expect(loadConfig({ DESTINATION_SECRET_KEY: key.toString('base64') }).destinations.secretKey?.equals(key)).toBe(true);
    expect(loadConfig({ DESTINATION_SECRET_KEY: key.toString('hex') }).destinations.secretKey?.equals(key)).toBe(true);
  });

  it('refuses any other length or encoding, naming the variable', () => {
    expect(() => loadConfig({ DESTINATION_SECRET_KEY: randomBytes(16).toString('base64') })).toThrow(/DESTINATION_SECRET_KEY/);
    expect(() => loadConfig({ DESTINATION_SECRET_KEY: 'not a key' })).toThrow(/DESTINATION_SECRET_KEY/);
  });

  it('is optional outside production, where destinations then cannot be configured', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).destinations.secretKey).toBeUndefined();
  });
});

describe('destination endpoints on private addresses', () => {
  it('are allowed in development and with INPUT_FETCH_ALLOW_PRIVATE, refused otherwise', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).destinations.allowPrivate).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).destinations.allowPrivate).toBe(false);
    expect(loadConfig({ NODE_ENV: 'test', INPUT_FETCH_ALLOW_PRIVATE: '1' }).destinations.allowPrivate).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test', INPUT_FETCH_ALLOW_PRIVATE: '0' }).destinations.allowPrivate).toBe(false);
  });
});
