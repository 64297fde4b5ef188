/**
 * Output retention in the console, in headless Chromium against the real stack: a client's job page says until when
 * the outputs are kept, and when and why they went once deleted; an operator sees an account's retention, where it
 * comes from, and sets the account's own.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteJobOutputs } from '../../../src/outputs/storing/deleteOutputs';
import { createAdminKey, createTestAccount, type TestAccount } from '../../support/accounts';
import { get, post, waitForFinal } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';
import { launchChromium, openConsole } from './consoleSupport';

let stack: TestStack;
let browser: Browser;
let adminKey: string;
let client: TestAccount;

beforeAll(async () => {
  stack = await startTestStack({ providers: ['pixelforge'], tuning: { outputs: { retentionMinSeconds: 60 } } });
  adminKey = await createAdminKey(stack.prisma);
  client = await createTestAccount(stack.prisma, { name: 'Retention Studio' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function completedJob(retentionSeconds: number): Promise<any> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, client.apiKey, {
    model: 'pixelforge/forge-pro/text-to-image',
    input: { prompt: 'a harbour at dusk' },
    retentionSeconds,
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
  return waitForFinal(stack, client.apiKey, submitted.body.jobId);
}

describe('output retention in the console', () => {
  it("shows on a job's page until when its outputs are kept, then when and why they were deleted", async () => {
    const job = await completedJob(3600);
    expect(job.status).toBe('completed');
    const { page, errors } = await openConsole(browser, stack.url, client.apiKey);
    await page.goto(`${stack.url}/console/jobs/${job.jobId}`);
    const retention = page.getByTestId('output-retention');
    await expect.poll(() => retention.textContent()).toMatch(/^kept until /);
    expect(await retention.locator('time').getAttribute('datetime')).toBe(job.outputsRetainedUntil);
    expect(await page.getByRole('heading', { name: 'Outputs' }).count()).toBe(1);

    const deleted = await deleteJobOutputs({ prisma: stack.prisma, storage: stack.api.deps.storage }, [job.jobId], 'retention');
    expect(deleted.map((d) => d.jobId)).toEqual([job.jobId]);
    const after = (await get(`${stack.url}/v1/jobs/${job.jobId}`, client.apiKey)).body;
    await page.reload();
    await expect.poll(() => retention.textContent()).toMatch(/^deleted .+ \(retention passed\)$/);
    expect(await retention.locator('time').getAttribute('datetime')).toBe(after.outputsDeletedAt);
    expect(await page.getByRole('heading', { name: 'Outputs' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it("shows an operator the account's retention and its source, and sets the account's own", async () => {
    const account = await createTestAccount(stack.prisma, { name: `Retained ${Date.now().toString(36)}`, plan: 'business' });
    const { page, errors } = await openConsole(browser, stack.url, adminKey, 'desktop', 'Accounts');
    await page.goto(`${stack.url}/console/admin/accounts/${account.accountId}`);
    const shown = page.getByTestId('account-retention');
    await expect.poll(() => shown.textContent()).toBe("Outputs are kept 30 days after a job completes (the business plan's default).");

    const form = page.getByRole('form', { name: 'Edit output retention' });
    await form.getByLabel('Keep outputs for (hours)').fill('0.01');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await page.getByText('Changing the output retention').waitFor();
    expect(await page.getByText('between 60 and').count()).toBeGreaterThan(0);

    await form.getByLabel('Keep outputs for (hours)').fill('48');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => shown.textContent()).toBe('Outputs are kept 2 days after a job completes (set for this account).');
    expect((await get(`${stack.url}/v1/admin/accounts/${account.accountId}`, adminKey)).body).toMatchObject({
      outputRetentionSeconds: 172_800,
      outputRetentionSource: 'account',
    });

    await form.getByLabel('Keep outputs for (hours)').fill('');
    await form.getByRole('button', { name: 'Save retention' }).click();
    await expect.poll(() => shown.textContent()).toBe('Outputs are kept forever (set for this account).');
    expect(errors).toEqual([]);
  });
});
