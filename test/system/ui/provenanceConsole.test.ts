/**
 * Content Credentials in the console, in headless Chromium against the real stack signing with a chain of its own:
 * an image generated in the console shows its manifest on the job's page; the downloaded file, dropped on the verify
 * form, is signed by this deployment for that job; the same file with one byte of its pixels changed is rejected, and
 * a copy re-encoded without its manifest proves nothing. A WebM signed by this deployment's key, dropped with its
 * sidecar `.c2pa`, is valid; alone it carries nothing; with one byte changed it is rejected.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAsset } from '../../../src/provenance/c2pa';
import { manifestDefinition } from '../../../src/provenance/manifest';
import { createFileSigner } from '../../../src/provenance/signer';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { startTestStack, type TestStack } from '../../support/stack';
import { dropFile, dropFiles, launchChromium, openConsole, seriousAccessibilityViolations } from './consoleSupport';
import { createChain, provenanceEnv } from '../../support/provenanceChain';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const CHAIN_NAME = 'genmedia console credentials';

let workDir: string;
let chain: { chainFile: string; keyFile: string; rootFile: string };
let stack: TestStack;
let browser: Browser;
let account: TestAccount;

beforeAll(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'genmedia-console-credentials-'));
  chain = createChain(path.join(workDir, 'chain'), { name: CHAIN_NAME });
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

async function verifyInForm(page: Page, name: string, bytes: Buffer, type = 'image/png'): Promise<Record<string, string>> {
  await dropFile(page, page.getByTestId('verify-dropzone'), name, type, bytes);
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

  it('checks a WebM dropped with its sidecar .c2pa, asks for the sidecar when it comes alone, and rejects it with one byte changed', async () => {
    // A WebM signed as the service signs one (a sidecar beside the unchanged bytes), with this deployment's key.
    const plain = path.join(workDir, 'clip.webm');
    await promisify(execFile)('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x48:rate=10', '-t', '1', '-c:v', 'libvpx-vp9', plain]);
    const signer = createFileSigner({ certificateChainPem: await readFile(chain.chainFile, 'utf8'), privateKeyPem: await readFile(chain.keyFile, 'utf8') });
    const facts = { jobId: 'job_elsewhere', output: 1, modelSlug: 'lumina/lumi-xl/text-to-video', version: '1', route: { provider: 'lumina' }, signedAt: new Date() };
    const signed = await signAsset({
      signer,
      definition: manifestDefinition(facts, { name: 'genmedia', version: '0.1.0' }, 'video/webm'),
      inputPath: plain,
      contentType: 'video/webm',
      outputPath: path.join(workDir, 'clip-signed.webm'),
    });
    expect(signed.embedded).toBe(false);
    const webm = await readFile(path.join(workDir, 'clip-signed.webm'));

    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.goto(`${stack.url}/console/verify`);
    await page.getByRole('heading', { name: 'Check a file' }).waitFor();
    const dropzone = page.getByTestId('verify-dropzone');
    const dropPair = async (bytes: Buffer) => {
      // The sidecar first: the page tells the pair apart by the .c2pa name, not by the order.
      await dropFiles(page, dropzone, [
        { name: 'clip.webm.c2pa', type: 'application/c2pa', bytes: signed.manifest },
        { name: 'clip.webm', type: 'video/webm', bytes },
      ]);
      await page.getByText(/^Checked clip\.webm \(.*\) with clip\.webm\.c2pa$/).waitFor();
      await page.getByTestId('verify-result').waitFor();
      return answers(page);
    };

    // Signed by this deployment, for no job of this account.
    expect(await dropPair(webm)).toEqual({ hasManifest: 'Yes', valid: 'Yes', signed: 'Yes', job: 'not a job of this account' });
    expect(await page.getByTestId('verify-result').getByTestId('credential-state').textContent()).toMatch(/^Trusted · /);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    expect(await verifyInForm(page, 'clip.webm', webm, 'video/webm')).toEqual({ hasManifest: 'No', valid: '—', signed: 'No', job: '—' });
    expect(await page.getByTestId('verify-result').textContent()).toContain('drop the WebM and its .c2pa together');

    const changed = Buffer.from(webm);
    changed[changed.length - 20] ^= 0x01;
    expect(await dropPair(changed)).toEqual({ hasManifest: 'Yes', valid: 'No', signed: 'No', job: '—' });
    expect(await page.getByTestId('credential-failures').textContent()).toMatch(/assertion\.dataHash\.mismatch/);

    // Two files that are no file and its sidecar are refused on the page, before anything is sent.
    await dropFiles(page, dropzone, [
      { name: 'a.webm', type: 'video/webm', bytes: webm },
      { name: 'b.webm', type: 'video/webm', bytes: webm },
    ]);
    await page.getByRole('alert').filter({ hasText: 'Drop one file, or one file with its .c2pa sidecar manifest.' }).waitFor();
    expect(errors).toEqual([]);
  }, 120_000);
});
