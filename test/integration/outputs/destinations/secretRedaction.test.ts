/**
 * A destination's secret is write-only: it appears in no answer of the API, no line the API process logs and no span
 * it exports. The API runs as its own process (as in production) with every log level on and its spans printed by
 * the console exporter; everything it writes is searched for the secret after good and refused configurations.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, REPO_ROOT } from '../../../../src/config';
import { createPrisma, type PrismaClient } from '../../../../src/db/prisma';
import { createStorage, type Storage } from '../../../../src/storage/storage';
import { createTestAccount } from '../../../support/accounts';
import { addUserWithPolicy, ownBucketPolicy, removeUserAndPolicy, type MinioRoot } from '../../../support/minioAdmin';
import { eventually } from '../../../support/eventually';

const config = loadConfig();
const suffix = randomBytes(4).toString('hex');
const bucket = `dest-redact-${suffix}`;
const user = { accessKey: `dest-redact-${suffix}`, secretKey: `redact-${randomBytes(16).toString('hex')}` };
const minioRoot: MinioRoot = { endpoint: config.minio.endpoint, accessKey: config.minio.accessKey, secretKey: config.minio.secretKey, region: config.minio.region };

let apiProcess: ChildProcess;
let output = '';
let apiUrl: string;
let prisma: PrismaClient;
let root: Storage;

beforeAll(async () => {
  prisma = createPrisma(config.database.url);
  root = createStorage(config.minio);
  await root.client.makeBucket(bucket, config.minio.region);
  await addUserWithPolicy(minioRoot, user, ownBucketPolicy(bucket));

  const tsx = require.resolve('tsx', { paths: [REPO_ROOT] });
  apiProcess = spawn(process.execPath, ['--import', tsx, path.join(REPO_ROOT, 'src/api/server.ts')], {
    cwd: REPO_ROOT,
    env: { ...process.env, PORT: '0', API_HOST: '127.0.0.1', LOG_LEVEL: 'trace', OTEL_TRACES_EXPORTER: 'console', INPUT_FETCH_ALLOW_PRIVATE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  apiProcess.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  apiProcess.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  apiUrl = await eventually(async () => /"url":"(http:\/\/127\.0\.0\.1:\d+)".*"msg":"API listening"/.exec(output)?.[1], 60_000, 100, 'the API process listening');
}, 90_000);

afterAll(async () => {
  if (apiProcess && apiProcess.exitCode === null) {
    apiProcess.kill('SIGKILL');
  }
  await removeUserAndPolicy(minioRoot, user.accessKey);
  await root?.removePrefix(bucket, '').catch(() => undefined);
  await root?.client.removeBucket(bucket).catch(() => undefined);
  await prisma?.$disconnect();
});

describe('a destination secret', () => {
  it('is in no answer, log line or exported span of the API process', async () => {
    const account = await createTestAccount(prisma);
    const answers: string[] = [];
    const call = async (method: string, body?: object) => {
      const response = await fetch(`${apiUrl}/v1/account/destination`, {
        method,
        headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      answers.push(JSON.stringify([...response.headers]), await response.text());
      return response.status;
    };
    const good = { endpoint: config.minio.endpoint, region: config.minio.region, bucket, prefix: 'out/', accessKeyId: user.accessKey, secretAccessKey: user.secretKey };
    const wrong = { ...good, secretAccessKey: `${user.secretKey}x` };
    const statuses = [
      await call('PUT', good),
      await call('GET'),
      await call('PUT', wrong),
      await call('PUT', { ...good, bucket: `${bucket}-missing` }),
      await call('PUT', { ...good, endpoint: 'http://169.254.169.254' }),
      await call('PUT', { ...good, bucket: 'Invalid_Name' }),
      await call('DELETE'),
    ];
    expect(statuses).toEqual([200, 200, 422, 422, 400, 400, 204]);

    apiProcess.kill('SIGTERM');
    await new Promise((resolve) => apiProcess.once('exit', resolve));

    // The search would be empty if nothing was captured: the requests were logged, and traced with the probe's
    // requests to the bucket.
    expect(output).toContain('/v1/account/destination');
    expect(output).toMatch(/traceId: '[0-9a-f]{32}'/);
    expect(output).toContain(`/${bucket}/out/.genmedia-probe-`);
    for (const secret of [user.secretKey, wrong.secretAccessKey]) {
      expect(answers.join('\n').includes(secret), 'the secret is in an answer').toBe(false);
      expect(output.includes(secret), 'the secret is in the log or a span').toBe(false);
    }
  }, 60_000);
});
