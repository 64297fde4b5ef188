import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../../../src/temporal/connectionOptions';

const address = 'genmedia.a1b2c.tmprl.cloud:7233';

function pemFiles() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'genmedia-temporal-tls-'));
  const file = (name: string) => {
    writeFileSync(path.join(dir, name), `-----BEGIN ${name}-----\n`);
    return path.join(dir, name);
  };
  return { cert: file('CERTIFICATE'), key: file('PRIVATE KEY'), ca: file('CA') };
}

describe('temporalConnectionOptions', () => {
  it('gives the address alone without credentials: plain gRPC, as the dev stack and compose use', () => {
    expect(temporalConnectionOptions({ address, credentials: {} })).toEqual({ address });
  });

  it('turns TLS on with an API key (Temporal Cloud)', () => {
    expect(temporalConnectionOptions({ address, credentials: { apiKey: 'key' } })).toEqual({ address, apiKey: 'key', tls: true });
  });

  it('reads the client certificate, its key and the CA from their files for mTLS', () => {
    const files = pemFiles();
    const options = temporalConnectionOptions({ address, credentials: { tlsCert: files.cert, tlsKey: files.key, tlsCa: files.ca } });
    expect(options.tls).toEqual({
      clientCertPair: { crt: Buffer.from('-----BEGIN CERTIFICATE-----\n'), key: Buffer.from('-----BEGIN PRIVATE KEY-----\n') },
      serverRootCACertificate: Buffer.from('-----BEGIN CA-----\n'),
    });
  });

  it('refuses a certificate without its key', () => {
    const files = pemFiles();
    expect(() => temporalConnectionOptions({ address, credentials: { tlsCert: files.cert } })).toThrow(/TEMPORAL_TLS_KEY/);
  });
});
