import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const { createChain, devProvenanceEnv } = require('../../../scripts/lib/provenanceChain') as {
  createChain(dir: string, options?: { name?: string }): { chainFile: string; keyFile: string; rootFile: string };
  devProvenanceEnv(dataDir: string, env?: NodeJS.ProcessEnv): Record<string, string>;
};

const SAFE = { JOBS_CURSOR_SECRET: 'a-long-random-cursor-secret-0123456789', DESTINATION_SECRET_KEY: 'AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=', MINIO_ROOT_PASSWORD: 'a-long-random-minio-password' };

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
    expect(() => loadConfig({ NODE_ENV: 'production', ...SAFE })).toThrow(/Refusing to start in production: set PROVENANCE_CERT_CHAIN_FILE.*PROVENANCE_ENABLED=false/);
    expect(loadConfig({ NODE_ENV: 'production', ...SAFE, PROVENANCE_ENABLED: 'false' }).provenance).toEqual({ enabled: false });
  });

  it('reads the chain and key from files, and takes the chain\'s CA as the trust anchor', () => {
    const config = loadConfig({ NODE_ENV: 'production', ...SAFE, PROVENANCE_CERT_CHAIN_FILE: chain.chainFile, PROVENANCE_PRIVATE_KEY_FILE: chain.keyFile });

    expect(config.provenance.signing?.certificateChainPem).toBe(fs.readFileSync(chain.chainFile, 'utf8'));
    expect(config.provenance.trustAnchorsPem?.trim()).toBe(fs.readFileSync(chain.rootFile, 'utf8').trim());
  });

  it('reads PEM text from variables, with \\n for line breaks, and a time-stamp authority', () => {
    const oneLine = (file: string) => fs.readFileSync(file, 'utf8').replace(/\n/g, '\\n');
    const config = loadConfig({ PROVENANCE_CERT_CHAIN: oneLine(chain.chainFile), PROVENANCE_PRIVATE_KEY: oneLine(chain.keyFile), PROVENANCE_TSA_URL: 'http://timestamp.example/tsa' });

    expect(config.provenance.signing).toMatchObject({ timestampAuthorityUrl: 'http://timestamp.example/tsa', certificateChainPem: fs.readFileSync(chain.chainFile, 'utf8') });
  });

  it('names the variable of a key that does not match the chain, a missing file, or half a pair', () => {
    const other = createChain(path.join(dir, 'other'));
    expect(() => loadConfig({ PROVENANCE_CERT_CHAIN_FILE: chain.chainFile, PROVENANCE_PRIVATE_KEY_FILE: other.keyFile })).toThrow(/PROVENANCE_PRIVATE_KEY.*does not belong/);
    expect(() => loadConfig({ PROVENANCE_CERT_CHAIN_FILE: path.join(dir, 'missing.pem'), PROVENANCE_PRIVATE_KEY_FILE: chain.keyFile })).toThrow(/PROVENANCE_CERT_CHAIN_FILE: cannot read/);
    expect(() => loadConfig({ PROVENANCE_CERT_CHAIN_FILE: chain.chainFile })).toThrow(/go together/);
  });

  it('signs nothing outside production when no chain is configured', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).provenance).toEqual({ enabled: true });
  });
});

describe('the development chain', () => {
  it('is made in the data directory on first use and kept', () => {
    const dataDir = path.join(dir, 'data');
    const env = devProvenanceEnv(dataDir, {});
    const first = fs.readFileSync(env.PROVENANCE_CERT_CHAIN_FILE, 'utf8');

    expect(env.PROVENANCE_CERT_CHAIN_FILE).toBe(path.join(dataDir, 'provenance', 'chain.pem'));
    expect((fs.statSync(env.PROVENANCE_PRIVATE_KEY_FILE).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readFileSync(devProvenanceEnv(dataDir, {}).PROVENANCE_CERT_CHAIN_FILE, 'utf8')).toBe(first);
    expect(loadConfig({ ...env }).provenance.signing?.certificateChainPem).toBe(first);
  });

  it('is left alone when the environment brings a chain or turns provenance off', () => {
    expect(devProvenanceEnv(path.join(dir, 'data2'), { PROVENANCE_CERT_CHAIN_FILE: chain.chainFile })).toEqual({});
    expect(devProvenanceEnv(path.join(dir, 'data2'), { PROVENANCE_ENABLED: 'false' })).toEqual({});
    expect(fs.existsSync(path.join(dir, 'data2'))).toBe(false);
  });
});
