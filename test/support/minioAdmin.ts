/**
 * MinIO's admin API, enough to make a user of our own with a policy of our own in the MinIO the harness started (what
 * `mc admin user add` and `mc admin policy create/attach` do). Requests are signed with SigV4 by the root user; a
 * body that carries a secret is encrypted as MinIO expects it (the madmin format: an Argon2id key from the root
 * secret, then AES-256-GCM in one sealed fragment).
 */
import { argon2Sync, createCipheriv, createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

type SigningModule = typeof import('minio/dist/main/signing');
// The signer is published for require() only.
const { signV4 } = createRequire(__filename)('minio/dist/main/signing.js') as SigningModule;

export interface MinioRoot {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  region: string;
}

/** madmin's EncryptData with the Argon2id + AES-GCM cipher: salt(32) ‖ 0x00 ‖ nonce(8) ‖ ciphertext ‖ tag. */
function encryptForAdmin(password: string, plaintext: Buffer): Buffer {
  const salt = randomBytes(32);
  const nonce = randomBytes(8);
  const key = argon2Sync('argon2id', { message: Buffer.from(password), nonce: salt, parallelism: 4, tagLength: 32, memory: 64 * 1024, passes: 1 });
  const fragmentNonce = (sequence: number) => {
    const full = Buffer.alloc(12);
    nonce.copy(full);
    full.writeUInt32LE(sequence, 8);
    return full;
  };
  // The stream's associated data: the tag of nothing under nonce ‖ 0, flagged 0x80 on the final fragment.
  const header = createCipheriv('aes-256-gcm', key, fragmentNonce(0));
  header.final();
  const associatedData = Buffer.concat([Buffer.from([0x80]), header.getAuthTag()]);
  const cipher = createCipheriv('aes-256-gcm', key, fragmentNonce(1));
  cipher.setAAD(associatedData);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([salt, Buffer.from([0x00]), nonce, ciphertext, cipher.getAuthTag()]);
}

async function adminRequest(root: MinioRoot, method: string, pathAndQuery: string, body: Buffer = Buffer.alloc(0)): Promise<string> {
  const url = new URL(`/minio/admin/v3/${pathAndQuery}`, root.endpoint);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const date = new Date();
  const headers: Record<string, string> = {
    host: url.host,
    'x-amz-date': date.toISOString().replace(/[:-]|\.\d{3}/g, ''),
    'x-amz-content-sha256': sha256,
  };
  headers.authorization = signV4(
    { protocol: url.protocol, method, path: `${url.pathname}${url.search}`, headers },
    root.accessKey,
    root.secretKey,
    root.region,
    date,
    sha256,
  );
  const { host: _host, ...sent } = headers;
  const response = await fetch(url, { method, headers: sent, body: method === 'GET' || method === 'DELETE' ? undefined : body });
  const text = await response.text();
  if (!response.ok) throw new Error(`MinIO admin ${method} ${url.pathname}: ${response.status} ${text}`);
  return text;
}

/** Adds (or resets) a user with its own secret key and attaches a policy made for it alone. */
export async function addUserWithPolicy(root: MinioRoot, user: { accessKey: string; secretKey: string }, policy: object): Promise<void> {
  const policyName = `${user.accessKey}-policy`;
  await adminRequest(root, 'PUT', `add-canned-policy?name=${encodeURIComponent(policyName)}`, Buffer.from(JSON.stringify(policy)));
  const account = Buffer.from(JSON.stringify({ secretKey: user.secretKey, status: 'enabled' }));
  await adminRequest(root, 'PUT', `add-user?accessKey=${encodeURIComponent(user.accessKey)}`, encryptForAdmin(root.secretKey, account));
  const query = new URLSearchParams({ policyName, userOrGroup: user.accessKey, isGroup: 'false' });
  await adminRequest(root, 'PUT', `set-user-or-group-policy?${query}`);
}

export async function removeUserAndPolicy(root: MinioRoot, accessKey: string): Promise<void> {
  await adminRequest(root, 'DELETE', `remove-user?accessKey=${encodeURIComponent(accessKey)}`).catch(() => undefined);
  await adminRequest(root, 'DELETE', `remove-canned-policy?name=${encodeURIComponent(`${accessKey}-policy`)}`).catch(() => undefined);
}

/** A policy that lets its user do everything with objects of `bucket`, and nothing else. */
export function ownBucketPolicy(bucket: string): object {
  return {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: ['s3:GetBucketLocation', 's3:ListBucket'], Resource: [`arn:aws:s3:::${bucket}`] },
      { Effect: 'Allow', Action: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'], Resource: [`arn:aws:s3:::${bucket}/*`] },
    ],
  };
}
