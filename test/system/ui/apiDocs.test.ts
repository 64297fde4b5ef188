/**
 * `GET /docs` as a reader sees it: the interactive reference renders every endpoint of `/openapi.json` in headless
 * Chromium, from our own origin only (no CDN, fonts or telemetry), without console errors.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_PATHS } from '../../../src/api/routes/docs';
import type { RunningApi } from '../../../src/api/server';
import { startTestApi } from '../../support/api';

let api: RunningApi;
let workDir: string;
let browser: BrowserContext;

beforeAll(async () => {
  api = await startTestApi();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-docs-test-'));
  browser = await chromium.launchPersistentContext(path.join(workDir, 'profile'), {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    viewport: { width: 1400, height: 1000 },
  });
});

afterAll(async () => {
  await browser?.close();
  await api?.stop();
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
});

/** Distinct colours in a downscaled screenshot: a blank or unstyled page has a handful. */
async function distinctColours(png: Buffer): Promise<number> {
  const { data } = await sharp(png).resize(200, 140, { fit: 'fill' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const colours = new Set<number>();
  for (let i = 0; i < data.length; i += 3) colours.add((data[i] >> 3) * 1024 + (data[i + 1] >> 3) * 32 + (data[i + 2] >> 3));
  return colours.size;
}

describe('GET /docs', () => {
  it('renders the reference with every endpoint, from this origin only', async () => {
    const page = await browser.newPage();
    const origin = new URL(api.url).origin;
    const elsewhere: string[] = [];
    const consoleErrors: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:')) elsewhere.push(url);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));

    const response = await page.goto(`${api.url}/docs`, { waitUntil: 'networkidle' });
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('genmedia API reference');
    for (const summary of ['Submit a job', 'Get one job', 'Cancel a pending job', "Follow one job's events", 'Create a presigned upload', 'List models']) {
      await page.getByText(summary, { exact: true }).first().waitFor({ state: 'attached', timeout: 30_000 });
    }
    const text = await page.locator('body').innerText();
    for (const route of ['/v1/jobs/submit', '/v1/jobs/{jobId}/events', '/v1/uploads/presign', '/v1/models/{modelId}']) expect(text).toContain(route);

    const screenshot = await page.screenshot({ fullPage: false });
    fs.writeFileSync(path.join(workDir, 'docs.png'), screenshot);
    expect(await distinctColours(screenshot)).toBeGreaterThan(20);
    expect(elsewhere).toEqual([]);
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it('serves the renderer from the installed package with a year-long cache, and the page with a same-origin policy', async () => {
    const renderer = await fetch(`${api.url}${DOCS_PATHS.renderer}`);
    expect(renderer.status).toBe(200);
    expect(renderer.headers.get('content-type')).toMatch(/javascript/);
    expect(renderer.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect((await renderer.text()).length).toBeGreaterThan(100_000);
    const pageResponse = await fetch(`${api.url}/docs`);
    expect(pageResponse.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(await pageResponse.text()).not.toMatch(/https?:\/\//);
  });
});
