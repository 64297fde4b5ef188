/**
 * The account page's bucket section in headless Chromium against the real API and MinIO: a refused secret is
 * explained with its code and nothing is saved, a correct one is saved and shown without its secret, and the bucket
 * is removed again. The bucket belongs to a MinIO user of its own, allowed only that bucket. A key without
 * `manage_outputs` sees the bucket with its buttons disabled.
 */
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningApi } from '../../../src/api/server';
import { createStorage, type Storage } from '../../../src/storage/storage';
import { bearer, request, startTestApi } from '../../support/api';
import { createTestAccount } from '../../support/accounts';
import { addUserWithPolicy, ownBucketPolicy, removeUserAndPolicy, type MinioRoot } from '../../support/minioAdmin';
import { launchChromium, openConsole, seriousAccessibilityViolations } from './consoleSupport';

const suffix = randomBytes(4).toString('hex');
const bucket = `dest-console-${suffix}`;
const user = { accessKey: `dest-console-${suffix}`, secretKey: `console-secret-${randomBytes(12).toString('hex')}` };

let api: RunningApi;
let browser: Browser;
let root: Storage;
let minioRoot: MinioRoot;

beforeAll(async () => {
  api = await startTestApi({ INPUT_FETCH_ALLOW_PRIVATE: '1' });
  const { minio } = api.deps.config;
  minioRoot = { endpoint: minio.endpoint, accessKey: minio.accessKey, secretKey: minio.secretKey, region: minio.region };
  root = createStorage(minio);
  await root.client.makeBucket(bucket, minio.region);
  await addUserWithPolicy(minioRoot, user, ownBucketPolicy(bucket));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await removeUserAndPolicy(minioRoot, user.accessKey);
  await root?.client.removeBucket(bucket).catch(() => undefined);
  await api?.stop();
});

describe('the bucket on the account page', () => {
  it('refuses a wrong secret with its code, saves the right one without showing it, and removes it', async () => {
    const account = await createTestAccount(api.deps.prisma, { name: 'Bucket Studio' });
    const { page, errors } = await openConsole(browser, api.url, account.apiKey);
    await page.goto(`${api.url}/console/account`);
    const section = page.locator('section[aria-labelledby="destination-title"]');
    await section.getByTestId('destination-none').waitFor();

    await section.getByRole('button', { name: 'Set a bucket' }).click();
    const form = section.getByRole('form', { name: 'Destination bucket' });
    await form.getByLabel('Endpoint').fill(minioRoot.endpoint);
    await form.getByLabel('Region').fill(minioRoot.region);
    await form.getByLabel('Bucket').fill(bucket);
    await form.getByLabel('Key prefix').fill('console');
    await form.getByLabel('Access key id').fill(user.accessKey);
    await form.getByLabel('Secret access key').fill('not-the-secret');
    expect(await form.getByLabel('Secret access key').getAttribute('type')).toBe('password');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('DESTINATION_CREDENTIALS_REFUSED').waitFor();
    expect((await request(`${api.url}/v1/account/destination`, { headers: bearer(account.apiKey) })).status).toBe(404);

    await form.getByLabel('Secret access key').fill(user.secretKey);
    await form.getByRole('button', { name: 'Save' }).click();
    const shown = section.getByTestId('destination');
    await shown.waitFor();
    expect(await shown.textContent()).toMatch(new RegExp(`${bucket} at ${minioRoot.endpoint.replace(/[.:/]/g, '\\$&')}.*console/.*${user.accessKey}, secret set \\(never shown\\)`));
    expect(await page.content()).not.toContain(user.secretKey);
    const saved = await request(`${api.url}/v1/account/destination`, { headers: bearer(account.apiKey) });
    expect(saved.body).toMatchObject({ bucket, prefix: 'console/', accessKeyId: user.accessKey, secretSet: true });

    await section.getByRole('button', { name: 'Remove the bucket' }).click();
    await section.getByTestId('destination-none').waitFor();
    expect((await request(`${api.url}/v1/account/destination`, { headers: bearer(account.apiKey) })).status).toBe(404);
    expect(errors).toEqual([]);
  }, 90_000);

  it('disables setting and removing the bucket for a key without manage_outputs', async () => {
    const account = await createTestAccount(api.deps.prisma, { name: 'Bucket Reader', scopes: ['submit_job', 'check_status'] });
    const { page, errors } = await openConsole(browser, api.url, account.apiKey);
    await page.goto(`${api.url}/console/account`);
    const section = page.locator('section[aria-labelledby="destination-title"]');
    await section.getByTestId('destination-none').waitFor();
    const set = section.getByRole('button', { name: 'Set a bucket' });
    expect(await set.isDisabled()).toBe(true);
    expect(await set.getAttribute('title')).toBe('This key lacks manage_outputs');
    expect(errors).toEqual([]);
  }, 60_000);
});
