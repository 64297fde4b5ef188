/**
 * The console's Batches page in headless Chromium against the real stack: a JSONL file dropped on the page is priced
 * with its refused line before anything is submitted, the batch's counts follow it live to its end, its items filter
 * by status, and its results and ZIP of outputs download.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { formatDollars } from '@genmedia/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount } from '../../support/accounts';
import { startE2eStack, type E2eStack } from '../../integration/e2e/e2eStack';
import { dropFile, launchChromium, openConsole, seriousAccessibilityViolations } from './consoleSupport';

const MODEL = 'pixelforge/forge-pro/text-to-image';
const PRICE = 45_000;

let stack: E2eStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startE2eStack({ providers: ['pixelforge'], tuning: { batches: { roundIntervalMs: 200 } } });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

/** The entries of a ZIP, as Python's zipfile reads them (an independent reader). */
function zipEntries(file: string): string[] {
  const script = 'import sys, zipfile, json; print(json.dumps(sorted(i.filename for i in zipfile.ZipFile(sys.argv[1]).infolist())))';
  return JSON.parse(execFileSync('python3', ['-c', script, file]).toString()) as string[];
}

describe('the Batches page', () => {
  it('prices a dropped file with its refused line, submits the valid lines, follows the counts and downloads results and outputs', async () => {
    const account = await createTestAccount(stack.prisma, { name: 'Batch Studio', maxConcurrentJobs: 4 });
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.goto(`${stack.url}/console/jobs`);
    await page.getByRole('link', { name: /^Batches/ }).click();
    await page.getByRole('heading', { name: 'Batches', exact: true }).waitFor();

    const lines = [
      ...Array.from({ length: 5 }, (_, i) => ({ customId: `sku-${i + 1}`, model: MODEL, input: { prompt: i === 2 ? 'broken [fail:permanent]' : `item ${i + 1}` } })),
      { customId: 'bad', model: 'nobody/nothing', input: {} },
    ];
    await dropFile(page, page.getByTestId('batch-dropzone'), 'catalogue.jsonl', '', Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));

    const estimate = page.getByTestId('batch-estimate');
    await estimate.waitFor();
    expect(await estimate.textContent()).toContain(`5 item(s), estimated ${formatDollars(5 * PRICE)}`);
    expect(await page.getByRole('table', { name: 'Estimate by model' }).textContent()).toContain(MODEL);
    expect(await page.getByTestId('batch-rejected').textContent()).toMatch(/1 line\(s\) refused.*Line 6 \(bad\): MODEL_NOT_FOUND/);
    // Nothing is submitted, let alone charged, before the person agrees to run the valid lines only.
    const submit = page.getByRole('button', { name: 'Submit 5 item(s)' });
    expect(await submit.isDisabled()).toBe(true);
    expect(await stack.prisma.batch.count({ where: { accountId: account.accountId } })).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.getByLabel('Run the 5 valid line(s) only').check();
    await submit.click();

    await page.waitForURL(/\/console\/batches\/bat_\w+$/);
    const batchId = page.url().split('/').pop()!;
    // The counts move on their own, without a reload, to the end.
    await page.getByTestId('batch-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('count-final').textContent()).toBe('5 / 5');
    expect(await page.getByTestId('count-completed').textContent()).toBe('4');
    expect(await page.getByTestId('count-failed').textContent()).toBe('1');
    expect(await page.getByTestId('batch-cost').textContent()).toBe(formatDollars(4 * PRICE));
    expect(await page.getByTestId('batch-rejected').textContent()).toContain('Line 6 (bad)');

    const items = page.locator('table.batch-items tbody tr');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(5);
    await page.getByLabel('Status').selectOption('failed');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(1);
    expect(await items.first().getAttribute('data-custom-id')).toBe('sku-3');
    expect(await items.first().textContent()).toMatch(/failed.*\$0\.00/);
    await page.getByLabel('Status').selectOption('completed');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(4);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    const [results] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download results (JSONL)' }).click()]);
    expect(results.suggestedFilename()).toBe(`${batchId}-results.jsonl`);
    const resultLines = readFileSync((await results.path())!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { customId: string; status: string });
    expect(resultLines.map((r) => [r.customId, r.status])).toEqual([
      ['sku-1', 'completed'],
      ['sku-2', 'completed'],
      ['sku-3', 'failed'],
      ['sku-4', 'completed'],
      ['sku-5', 'completed'],
    ]);

    const [archive] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download outputs (ZIP)' }).click()]);
    expect(archive.suggestedFilename()).toBe(`${batchId}.zip`);
    expect(zipEntries((await archive.path())!)).toEqual(['results.jsonl', 'sku-1.png', 'sku-2.png', 'sku-4.png', 'sku-5.png']);

    // The listing shows it too.
    await page.getByRole('link', { name: '← Batches' }).click();
    const row = page.locator(`tr[data-batch-id="${batchId}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('5/5');
    expect(errors).toEqual([]);
  }, 120_000);
});
