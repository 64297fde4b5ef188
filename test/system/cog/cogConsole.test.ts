/** A model imported from a Cog server in the console (headless Chromium): its generated form, a job, its image. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startCogServer, type CogServerProcess } from '../../support/cogServer';
import { startE2eStack, type E2eStack } from '../../integration/e2e/e2eStack';
import { launchChromium, openConsole } from '../ui/consoleSupport';
import { COG_TEST_TUNING, createCogTestAccount, importPainter, uniqueProvider } from './cogSupport';

let stack: E2eStack;
let cog: CogServerProcess;
let browser: Browser;

beforeAll(async () => {
  [stack, cog, browser] = await Promise.all([startE2eStack({ tuning: COG_TEST_TUNING }), startCogServer({ stepSeconds: 0.1 }), launchChromium()]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await cog?.kill();
  await stack?.stop();
});

it('renders the form of the server\'s schema and generates an image from it', async () => {
  const provider = uniqueProvider('cogconsole');
  const slug = await importPainter(stack, provider, [cog.url], 20_000);
  await stack.workers.startProviderWorker(provider);
  const account = await createCogTestAccount(stack);

  const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
  await page.goto(`${stack.url}/console/models/${slug}`);
  await page.getByRole('heading', { name: 'painter (self-hosted)' }).waitFor();
  await page.screenshot({ path: 'test-output/cog-console-form.png', fullPage: true });
  // One field per input of the predictor, with the server's defaults and descriptions.
  for (const label of ['Prompt', 'Steps', 'Width', 'Height', 'Seed']) await page.getByLabel(label).waitFor();
  expect(await page.getByLabel('Steps').inputValue()).toBe('8');
  await page.getByText('Denoising steps (one layer each)').waitFor();

  await page.getByLabel('Prompt').fill('a lighthouse from the console');
  await page.getByLabel('Steps').fill('5');
  await page.getByRole('button', { name: 'Generate for $0.02' }).click();
  await page.waitForURL(/\/console\/jobs\/job_/);
  await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
  const image = page.getByRole('img', { name: 'Output 1' });
  await expect.poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(256);

  expect(cog.runs()).toHaveLength(1);
  expect(cog.runs()[0].split('\t')[3]).toBe('5');
  expect(errors).toEqual([]);
}, 120_000);
