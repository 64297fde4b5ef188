/**
 * Content Credentials in the console, in headless Chromium against the real stack signing with a chain of its own:
 * an image generated in the console shows its manifest on the job's page; the downloaded file, dropped on the verify
 * form, is signed by this deployment for that job; the same file with one byte of its pixels changed is rejected, and
 * a copy re-encoded without its manifest proves nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { startTestStack, type TestStack } from '../../support/stack';
import { dropFile, launchChromium, openConsole, seriousAccessibilityViolations } from './consoleSupport';

// scripts/ is plain CommonJS so that it runs before node_modules exist.
const { createChain, provenanceEnv } = require('../../../scripts/lib/provenanceChain') as {
  createChain(dir: string, options?: { name?: string }): { chainFile: string; keyFile: string; rootFile: string };
  provenanceEnv(files: { chainFile: string; keyFile: string; rootFile: string }): Record<string, string>;
};

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const CHAIN_NAME = 'genmedia console credentials';

let workDir: string;
let stack: TestStack;
let browser: Browser;
let account: TestAccount;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-console-credentials-'));
  const chain = createChain(path.join(workDir, 'chain'), { name: CHAIN_NAME });
  stack = await startTestStack({ providers: ['pixelforge'], env: provenanceEnv(chain) });
  account = await createTestAccount(stack.prisma, { name: 'Credentials Studio' });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** A copy of a PNG with one byte of its first image data chunk (the compressed pixels) changed; its manifest kept. */
function withOnePixelByteFlipped(png: Buffer): Buffer {
  const idat = png.indexOf('IDAT', 8, 'latin1');
  expect(idat).toBeGreaterThan(0);
  const length = png.readUInt32BE(idat - 4);
  const copy = Buffer.from(png);
  copy[idat + 4 + Math.floor(length / 2)] ^= 0x01;
  return copy;
}

async function answers(page: Page): Promise<Record<string, string>> {
  const result = page.getByTestId('verify-result');
  const text = async (id: string) => ((await result.getByTestId(id).textContent()) ?? '').trim();
  return {
    hasManifest: await text('verify-has-manifest'),
    valid: await text('verify-valid'),
    signed: await text('verify-signed'),
    job: await text('verify-job'),
  };
}

async function verifyInForm(page: Page, name: string, bytes: Buffer): Promise<Record<string, string>> {
  await dropFile(page, page.getByTestId('verify-dropzone'), name, 'image/png', bytes);
  await page.getByText(new RegExp(`^Checked ${name.replace('.', '\\.')} `)).waitFor();
  await page.getByTestId('verify-result').waitFor();
  return answers(page);
}

describe('Content Credentials in the console', () => {
  it("shows a generated image's credentials, and the verify form names its job for the downloaded file and rejects it with one byte changed", async () => {
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.goto(`${stack.url}/console/models/${TEXT_TO_IMAGE}`);
    await page.getByRole('heading', { name: 'Forge Pro' }).waitFor();
    await page.getByLabel('Prompt').fill('a signed lighthouse');
    await page.getByRole('button', { name: /^Generate for/ }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    const jobId = page.url().split('/').pop()!;
    await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });

    // The job page: the output's manifest, as the service reads it from storage.
    const panel = page.getByTestId('credentials-1');
    await expect.poll(async () => (await panel.getByTestId('credential-state').textContent()) ?? '', { timeout: 15_000 }).toMatch(/^Trusted · valid, and signed by this deployment/);
    expect(await panel.getByTestId('credential-job').textContent()).toBe(`${jobId} · output 1`);
    expect(await panel.getByTestId('credential-model').textContent()).toMatch(new RegExp(`^${TEXT_TO_IMAGE} · version \\S+$`));
    expect(await panel.getByTestId('credential-signer').textContent()).toMatch(new RegExp(`^${CHAIN_NAME} signer`));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Downloaded as a person would: the bytes behind the page's download link.
    const href = await page.getByRole('link', { name: 'Download 1' }).getAttribute('href');
    const download = await page.request.get(new URL(href!, page.url()).toString());
    expect(download.status()).toBe(200);
    const png = Buffer.from(await download.body());
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');

    await page.getByRole('link', { name: 'Check a file' }).click();
    await page.getByRole('heading', { name: 'Check a file' }).waitFor();
    expect(await verifyInForm(page, 'output-1.png', png)).toEqual({ hasManifest: 'Yes', valid: 'Yes', signed: 'Yes', job: `${jobId} · output 1` });
    expect(await page.getByTestId('verify-job').getByRole('link').getAttribute('href')).toBe(`/console/jobs/${jobId}`);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    const edited = await verifyInForm(page, 'output-1-edited.png', withOnePixelByteFlipped(png));
    expect(edited).toEqual({ hasManifest: 'Yes', valid: 'No', signed: 'No', job: '—' });
    expect(await page.getByTestId('verify-result').getByTestId('credential-state').textContent()).toMatch(/^Invalid · /);
    expect(await page.getByTestId('credential-failures').textContent()).toMatch(/assertion\.dataHash\.mismatch/);

    // An editor that does not carry C2PA forward drops the manifest: the copy then proves nothing either way.
    const reencoded = await sharp(png).png().toBuffer();
    expect(await verifyInForm(page, 'output-1-reencoded.png', reencoded)).toEqual({ hasManifest: 'No', valid: '—', signed: 'No', job: '—' });
    expect(errors).toEqual([]);
  }, 120_000);
});
