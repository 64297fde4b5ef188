import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const devSecrets = require('../../../scripts/lib/devSecrets') as {
  DESTINATION_KEY_FILE: string;
  destinationSecretKey(dataDir: string, env?: NodeJS.ProcessEnv): string;
};

describe("the dev stack's destination secret key", () => {
  it('is generated into the data directory on first start (readable by its owner only) and kept across restarts', () => {
    const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dev-secrets-')), 'data');
    const first = devSecrets.destinationSecretKey(dataDir, {});
    const file = path.join(dataDir, devSecrets.DESTINATION_KEY_FILE);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(devSecrets.destinationSecretKey(dataDir, {})).toBe(first);
    expect(loadConfig({ DESTINATION_SECRET_KEY: first }).destinations.secretKey).toHaveLength(32);
  });

  it('is the one in the environment when there is one', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-secrets-'));
    expect(devSecrets.destinationSecretKey(dataDir, { DESTINATION_SECRET_KEY: 'from-the-environment' })).toBe('from-the-environment');
    expect(fs.existsSync(path.join(dataDir, devSecrets.DESTINATION_KEY_FILE))).toBe(false);
  });
});
