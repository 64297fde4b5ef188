/**
 * `genmedia destination set|show|delete` on the SDK's setDestination, getDestination and deleteDestination, against
 * the real API and a MinIO user of its own: the secret is taken from stdin (never an argument) and never printed.
 */
import { mkdtempSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createStorage, type Storage } from '../../../src/storage/storage';
import { startTestApi } from '../../support/api';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { runCli, type CliRun } from '../../support/cli';
import { addUserWithPolicy, ownBucketPolicy, removeUserAndPolicy, type MinioRoot } from '../../support/minioAdmin';

const suffix = randomBytes(4).toString('hex');
const bucket = `dest-cli-${suffix}`;
const user = { accessKey: `dest-cli-${suffix}`, secretKey: `cli-secret-${randomBytes(12).toString('hex')}` };

let api: RunningApi;
let root: Storage;
let minioRoot: MinioRoot;
let account: TestAccount;

function cli(args: string[], input = ''): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GENMEDIA_CONFIG_DIR: mkdtempSync(path.join(os.tmpdir(), 'genmedia-cli-config-')),
    GENMEDIA_BASE_URL: api.url,
    GENMEDIA_API_KEY: account.apiKey,
  };
  delete env.GENMEDIA_DESTINATION_SECRET_ACCESS_KEY;
  return runCli(['destination', ...args], { env, cwd: mkdtempSync(path.join(os.tmpdir(), 'genmedia-cli-cwd-')), input });
}

beforeAll(async () => {
  api = await startTestApi({ INPUT_FETCH_ALLOW_PRIVATE: '1' });
  const { minio } = api.deps.config;
  minioRoot = { endpoint: minio.endpoint, accessKey: minio.accessKey, secretKey: minio.secretKey, region: minio.region };
  root = createStorage(minio);
  await root.client.makeBucket(bucket, minio.region);
  await addUserWithPolicy(minioRoot, user, ownBucketPolicy(bucket));
  account = await createTestAccount(api.deps.prisma);
}, 60_000);

afterAll(async () => {
  await removeUserAndPolicy(minioRoot, user.accessKey);
  await root?.client.removeBucket(bucket).catch(() => undefined);
  await api?.stop();
});

describe('genmedia destination', () => {
  it('sets, shows and deletes the destination; a refused one says why', async () => {
    const setArgs = ['set', '--endpoint', minioRoot.endpoint, '--bucket', bucket, '--prefix', 'cli', '--access-key-id', user.accessKey];

    const wrong = await cli(setArgs, 'not-the-secret\n');
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('(DESTINATION_CREDENTIALS_REFUSED)');

    const none = await cli(['show', '--json']);
    expect([none.code, none.json]).toEqual([0, null]);

    const set = await cli(setArgs, `${user.secretKey}\n`);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`s3 bucket   ${bucket} at ${minioRoot.endpoint}`);
    expect(set.stdout).toContain('prefix      cli/');
    expect(set.stdout).toContain('secret set (never shown)');

    const shown = await cli(['show', '--json']);
    expect(shown.json).toMatchObject({ bucket, prefix: 'cli/', accessKeyId: user.accessKey, secretSet: true });
    for (const run of [set, shown]) expect(run.stdout + run.stderr).not.toContain(user.secretKey);

    const deleted = await cli(['delete']);
    expect([deleted.code, deleted.stdout.trim()]).toEqual([0, 'destination removed']);
    expect((await cli(['show'])).stdout.trim()).toBe('no destination: outputs stay in genmedia only');
  }, 60_000);
});
