import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSigningKeyVariables, loadConfig, loadSigningKey, SETTINGS } from '../../../src/config';
import { listSettings } from '../../../src/lib/envSettings';
import { createChain, devProvenanceEnv } from '../../support/provenanceChain';

const SAFE = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_SECRET_KEY: 'a-long-random-minio-password' };

let dir: string;
let chain: { chainFile: string; keyFile: string; rootFile: string };

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-provenance-config-'));
  chain = createChain(path.join(dir, 'chain'));
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('provenance settings', () => {
  it('refuses to start in production without a chain unless provenance is turned off', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE })).toThrow(/Refusing to start in production: set PROVENANCE_CERT_CHAIN .*PROVENANCE_ENABLED=false/);
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE, PROVENANCE_ENABLED: 'false' }).provenance).toEqual({ enabled: false });
  });

  it('reads the chain and key from the files the variables name, and takes the chain\'s CA as the trust anchor', () => {
    const env = { NODE_ENV: 'production', ...SAFE, PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_PRIVATE_KEY: chain.keyFile };
    const config = loadConfig(env);

    expect(config.provenance.certificateChainPem).toBe(fs.readFileSync(chain.chainFile, 'utf8'));
    expect(config.provenance.trustAnchorsPem?.trim()).toBe(fs.readFileSync(chain.rootFile, 'utf8').trim());
    expect(loadSigningKey(config, env)).toEqual({ certificateChainPem: fs.readFileSync(chain.chainFile, 'utf8'), privateKeyPem: fs.readFileSync(chain.keyFile, 'utf8') });
  });

  it('reads PEM text from the variables, with \\n for line breaks or with real ones, and a time-stamp authority', () => {
    const oneLine = (file: string) => fs.readFileSync(file, 'utf8').replace(/\n/g, '\\n');
    const env = { PROVENANCE_CERT_CHAIN: oneLine(chain.chainFile), PROVENANCE_PRIVATE_KEY: oneLine(chain.keyFile), PROVENANCE_TSA_URL: 'http://timestamp.example/tsa' };

    expect(loadSigningKey(loadConfig(env), env)).toMatchObject({
      timestampAuthorityUrl: 'http://timestamp.example/tsa',
      certificateChainPem: fs.readFileSync(chain.chainFile, 'utf8'),
      privateKeyPem: fs.readFileSync(chain.keyFile, 'utf8'),
    });
    const multiline = { PROVENANCE_CERT_CHAIN: fs.readFileSync(chain.chainFile, 'utf8'), PROVENANCE_PRIVATE_KEY: fs.readFileSync(chain.keyFile, 'utf8') };
    expect(loadSigningKey(loadConfig(multiline), multiline)?.certificateChainPem).toBe(fs.readFileSync(chain.chainFile, 'utf8'));
  });

  it('takes the trust anchors as text or as a file', () => {
    const root = fs.readFileSync(chain.rootFile, 'utf8');
    const other = createChain(path.join(dir, 'anchors'));
    const otherRoot = fs.readFileSync(other.rootFile, 'utf8');
    expect(loadConfig({ PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_TRUST_ANCHORS: other.rootFile }).provenance.trustAnchorsPem).toBe(otherRoot);
    expect(loadConfig({ PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_TRUST_ANCHORS: otherRoot }).provenance.trustAnchorsPem).toBe(otherRoot);
    expect(loadConfig({ PROVENANCE_CERT_CHAIN: chain.chainFile }).provenance.trustAnchorsPem?.trim()).toBe(root.trim());
  });

  it('names the variable of a key that does not match the chain, a missing file, or half a pair', () => {
    const other = createChain(path.join(dir, 'other'));
    const signingKey = (env: NodeJS.ProcessEnv) => loadSigningKey(loadConfig(env), env);
    expect(() => signingKey({ PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_PRIVATE_KEY: other.keyFile })).toThrow(/PROVENANCE_PRIVATE_KEY.*does not belong/);
    const missingChain = path.join(dir, 'missing.pem');
    expect(() => signingKey({ PROVENANCE_CERT_CHAIN: missingChain, PROVENANCE_PRIVATE_KEY: chain.keyFile })).toThrow(`PROVENANCE_CERT_CHAIN: cannot read ${missingChain} (ENOENT); give the PEM text`);
    expect(() => signingKey({ PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_PRIVATE_KEY: path.join(dir, 'missing.key') })).toThrow(/PROVENANCE_PRIVATE_KEY: cannot read the file it names \(ENOENT\)/);
    expect(() => signingKey({ PROVENANCE_CERT_CHAIN: chain.chainFile })).toThrow(/go together in a process that signs outputs/);
    expect(() => signingKey({ PROVENANCE_PRIVATE_KEY: chain.keyFile })).toThrow(/go together/);
    expect(() => loadConfig({ PROVENANCE_CERT_CHAIN: '-----BEGIN CERTIFICATE-----\\nnot a certificate\\n-----END CERTIFICATE-----' })).toThrow(/PROVENANCE_CERT_CHAIN: /);
    expect(() => loadConfig({ PROVENANCE_CERT_CHAIN: chain.keyFile })).toThrow(/PROVENANCE_CERT_CHAIN: the certificate chain holds no PEM certificate/);
  });

  it('never repeats the value of a key it cannot read: it may be a key that lost its PEM header', () => {
    const body = fs.readFileSync(chain.keyFile, 'utf8').split('\n').slice(1, -2).join('');
    const env = { PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_PRIVATE_KEY: body };
    const refusal = (() => {
      try {
        loadSigningKey(loadConfig(env), env);
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(refusal).toMatch(/PROVENANCE_PRIVATE_KEY: cannot read the file it names/);
    expect(refusal).not.toContain(body.slice(0, 16));
  });

  it('signs nothing outside production when no chain is configured, nor anything when provenance is off', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).provenance).toEqual({ enabled: true });
    expect(loadSigningKey(loadConfig({ NODE_ENV: 'development' }), {})).toBeUndefined();
    const off = { PROVENANCE_ENABLED: 'false', PROVENANCE_CERT_CHAIN: chain.chainFile, PROVENANCE_PRIVATE_KEY: chain.keyFile };
    expect(loadSigningKey(loadConfig(off), off)).toBeUndefined();
  });
});

describe('the signing key', () => {
  const keyPem = () => fs.readFileSync(chain.keyFile, 'utf8');

  it('is no setting of the configuration every process loads: the API and the workflow worker never read it', () => {
    const variables = listSettings(SETTINGS).map(({ setting }) => setting.variable);
    expect(variables).toEqual(expect.arrayContaining(['PROVENANCE_CERT_CHAIN', 'PROVENANCE_TRUST_ANCHORS']));
    expect(variables.filter((variable) => variable.startsWith('PROVENANCE_PRIVATE_KEY'))).toEqual([]);

    for (const key of [{ PROVENANCE_PRIVATE_KEY: chain.keyFile }, { PROVENANCE_PRIVATE_KEY: keyPem().replace(/\n/g, '\\n') }]) {
      const config = loadConfig({ NODE_ENV: 'production', ...SAFE, PROVENANCE_CERT_CHAIN: chain.chainFile, ...key });
      const held = JSON.stringify(config);
      expect(held).not.toContain('PRIVATE KEY');
      expect(held).not.toContain(chain.keyFile);
      expect(held).not.toContain(keyPem().split('\n')[1]);
    }
  });

  it('is not even looked at by the configuration: a key file that cannot be read or a key that is no key start the API and the workflow worker', () => {
    for (const key of [{ PROVENANCE_PRIVATE_KEY: path.join(dir, 'missing.key') }, { PROVENANCE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\\nnot a key\\n-----END PRIVATE KEY-----' }]) {
      const config = loadConfig({ NODE_ENV: 'production', ...SAFE, PROVENANCE_CERT_CHAIN: chain.chainFile, ...key });
      expect(config.provenance).toMatchObject({ enabled: true, certificateChainPem: fs.readFileSync(chain.chainFile, 'utf8') });
    }
  });

  it('is dropped from a process environment, which then holds none of its variables', () => {
    const env: NodeJS.ProcessEnv = { PROVENANCE_PRIVATE_KEY: '/run/secrets/key', PROVENANCE_CERT_CHAIN: chain.chainFile };
    expect(dropSigningKeyVariables(env)).toEqual(['PROVENANCE_PRIVATE_KEY']);
    expect(env).toEqual({ PROVENANCE_CERT_CHAIN: chain.chainFile });
    expect(dropSigningKeyVariables(env)).toEqual([]);
  });
});

describe('the development chain', () => {
  it('is made in the data directory on first use and kept', () => {
    const dataDir = path.join(dir, 'data');
    const env = devProvenanceEnv(dataDir, {});
    const first = fs.readFileSync(env.PROVENANCE_CERT_CHAIN, 'utf8');

    expect(env.PROVENANCE_CERT_CHAIN).toBe(path.join(dataDir, 'provenance', 'chain.pem'));
    expect((fs.statSync(env.PROVENANCE_PRIVATE_KEY).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readFileSync(devProvenanceEnv(dataDir, {}).PROVENANCE_CERT_CHAIN, 'utf8')).toBe(first);
    expect(loadSigningKey(loadConfig({ ...env }), env)?.certificateChainPem).toBe(first);
  });

  it('is left alone when the environment brings a chain or turns provenance off', () => {
    expect(devProvenanceEnv(path.join(dir, 'data2'), { PROVENANCE_CERT_CHAIN: chain.chainFile })).toEqual({});
    expect(devProvenanceEnv(path.join(dir, 'data2'), { PROVENANCE_ENABLED: 'false' })).toEqual({});
    expect(fs.existsSync(path.join(dir, 'data2'))).toBe(false);
  });
});
