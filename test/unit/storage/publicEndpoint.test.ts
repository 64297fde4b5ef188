import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config';
import { createStorage } from '../../../src/storage/storage';

describe('MINIO_PUBLIC_ENDPOINT', () => {
  it('is the host presigned upload and download URLs are signed for; the service keeps talking to MINIO_ENDPOINT', async () => {
    const config = loadConfig({ MINIO_ENDPOINT: 'http://minio:9000', MINIO_PUBLIC_ENDPOINT: 'https://files.example.com/' });
    expect(config.minio).toMatchObject({ endpoint: 'http://minio:9000', publicEndpoint: 'https://files.example.com' });
    const storage = createStorage(config.minio);
    const put = new URL(await storage.presignPut(storage.uploadsBucket, 'acc/file_1', 'image/png', 60));
    const get = new URL(await storage.presignGet(storage.outputsBucket, 'job_1/0.png', 60));
    expect(put.origin).toBe('https://files.example.com');
    expect(put.pathname).toBe('/genmedia-uploads/acc/file_1');
    expect(get.origin).toBe('https://files.example.com');
    expect(put.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
  });

  it('defaults to MINIO_ENDPOINT, and the app may use its own MinIO user', () => {
    const config = loadConfig({ MINIO_ENDPOINT: 'http://127.0.0.1:9000', MINIO_ACCESS_KEY: 'genmedia-app', MINIO_SECRET_KEY: 'app-secret-1234' });
    expect(config.minio).toMatchObject({ publicEndpoint: 'http://127.0.0.1:9000', accessKey: 'genmedia-app', secretKey: 'app-secret-1234' });
  });
});
