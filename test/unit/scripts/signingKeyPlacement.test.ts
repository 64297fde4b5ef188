/**
 * The signing key of Content Credentials goes only to the processes that sign outputs, the provider workers, however
 * the stack is started: docker-compose.yml, and the supervisor of `npm run dev` and `npm run cluster`. The API and the
 * workflow worker get the chain alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SIGNING_KEY_SETTINGS } from '../../../src/config';
import { listSettings } from '../../../src/lib/envSettings';

const REPO_ROOT = path.resolve(__dirname, '../../..');

type ServiceSpec = { spec: { env: NodeJS.ProcessEnv } };
const app = require('../../../scripts/lib/app') as {
  SIGNING_KEY_VARIABLES: string[];
  apiService: (env: NodeJS.ProcessEnv, logDir: string) => ServiceSpec;
  devApiService: (env: NodeJS.ProcessEnv, logDir: string) => ServiceSpec;
  workflowWorkerService: (env: NodeJS.ProcessEnv, logDir: string) => ServiceSpec;
  providerWorkerService: (id: string, env: NodeJS.ProcessEnv, logDir: string) => ServiceSpec;
  cogWorkerService: (env: NodeJS.ProcessEnv, logDir: string) => ServiceSpec;
};

interface ComposeService {
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
}

const KEY_VARIABLES = listSettings(SIGNING_KEY_SETTINGS).map(({ setting }) => setting.variable);

describe('docker-compose.yml', () => {
  const compose = parse(fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const application = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
  const signs = (service: ComposeService) => (service.command ?? []).some((arg) => arg === '--provider' || arg === '--cog-providers');

  it('gives the signing key to the provider workers and to no other service', () => {
    const holders = Object.entries(compose.services).filter(([, service]) => KEY_VARIABLES.some((variable) => service.environment?.[variable] !== undefined));
    const signers = application.filter(([, service]) => signs(service));
    expect(signers.map(([name]) => name)).toEqual(expect.arrayContaining(['worker-pixelforge', 'worker-cog', 'worker-openai']));
    expect(holders.map(([name]) => name).sort()).toEqual(signers.map(([name]) => name).sort());
    for (const name of ['api', 'worker-workflows', 'migrate']) {
      expect(Object.keys(compose.services[name].environment ?? {}).filter((variable) => KEY_VARIABLES.includes(variable)), name).toEqual([]);
    }
  });

  it('gives the chain to every application service', () => {
    for (const [name, service] of application) expect(service.environment?.PROVENANCE_CERT_CHAIN, name).toBeDefined();
  });
});

describe('the supervisor of npm run dev and npm run cluster', () => {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-signing-key-'));
  afterAll(() => fs.rmSync(logDir, { recursive: true, force: true }));
  const env = { PROVENANCE_CERT_CHAIN: '/data/chain.pem', PROVENANCE_PRIVATE_KEY: '/data/signer.key' };

  it('names the variables src/config.ts reads the key from', () => {
    expect([...app.SIGNING_KEY_VARIABLES].sort()).toEqual([...KEY_VARIABLES].sort());
  });

  it('starts the API and the workflow worker without the key, with the chain', () => {
    for (const service of [app.apiService(env, logDir), app.devApiService(env, logDir), app.workflowWorkerService(env, logDir)]) {
      expect(service.spec.env).toEqual({ PROVENANCE_CERT_CHAIN: '/data/chain.pem' });
    }
  });

  it('gives the key to the provider workers', () => {
    for (const service of [app.providerWorkerService('pixelforge', env, logDir), app.cogWorkerService(env, logDir)]) {
      expect(service.spec.env).toEqual(env);
    }
  });
});
