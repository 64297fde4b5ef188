/**
 * A customer's own S3 service for tests: a second MinIO server on free ports with its data in a temporary folder,
 * which a test can stop and start again (same port, same data), and credentials allowed one bucket only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import * as Minio from 'minio';
import { freeRestartPorts } from './restartPort';

const load = createRequire(__filename);
type AssumeRoleModule = typeof import('minio/dist/main/AssumeRoleProvider');
// The provider is published for require() only.
const { AssumeRoleProvider } = load('minio/dist/main/AssumeRoleProvider.js') as AssumeRoleModule;

interface Service {
  start(): Service;
  stop(): Promise<void>;
}
const minio = load('../../scripts/lib/minio') as {
  VERSION: string;
  createService(o: { binary: string; dataDir: string; port: number; consolePort: number; user: string; password: string; logFile: string }): Service;
  waitReady(o: { port: number; service: Service }): Promise<void>;
};
const { binCacheDir } = load('../../scripts/lib/paths') as { binCacheDir(name: string): string };

const REGION = 'us-east-1';

export interface CustomerMinio {
  endpoint: string;
  /** A client with the root user's credentials: creates buckets, reads what arrived. */
  root: Minio.Client;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Credentials whose policy allows reading and writing objects of `bucket` only. */
  clientForBucketOnly(bucket: string): Promise<Minio.Client>;
  close(): Promise<void>;
}

export async function startCustomerMinio(): Promise<CustomerMinio> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'customer-minio-'));
  const [port, consolePort] = await freeRestartPorts(2);
  const user = `customer${randomBytes(4).toString('hex')}`;
  const password = randomBytes(16).toString('hex');
  const endpoint = `http://127.0.0.1:${port}`;
  let service: Service | null = null;

  const clientWith = (credentials: { accessKey: string; secretKey: string; sessionToken?: string }) =>
    new Minio.Client({ endPoint: '127.0.0.1', port, useSSL: false, region: REGION, pathStyle: true, ...credentials });

  const customer: CustomerMinio = {
    endpoint,
    root: clientWith({ accessKey: user, secretKey: password }),
    async start() {
      if (service) return;
      const started = minio
        .createService({
          binary: path.join(binCacheDir(`minio-${minio.VERSION}`), 'minio'),
          dataDir: path.join(dir, 'data'),
          port,
          consolePort,
          user,
          password,
          logFile: path.join(dir, 'minio.log'),
        })
        .start();
      service = started;
      await minio.waitReady({ port, service: started });
    },
    async stop() {
      const running = service;
      service = null;
      await running?.stop();
    },
    async clientForBucketOnly(bucket) {
      const policy = {
        Version: '2012-10-17',
        Statement: [
          { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], Resource: [`arn:aws:s3:::${bucket}/*`] },
          { Effect: 'Allow', Action: ['s3:ListBucket', 's3:GetBucketLocation'], Resource: [`arn:aws:s3:::${bucket}`] },
        ],
      };
      const credentials = await new AssumeRoleProvider({ stsEndpoint: endpoint, accessKey: user, secretKey: password, region: REGION, policy: JSON.stringify(policy) }).getCredentials();
      return clientWith({ accessKey: credentials.accessKey, secretKey: credentials.secretKey, sessionToken: credentials.sessionToken });
    },
    async close() {
      await customer.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  await customer.start();
  return customer;
}
