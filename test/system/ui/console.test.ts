/**
 * The web console as a customer uses it, in headless Chromium against the real stack (API serving the built
 * console, Temporal workers, PostgreSQL, MinIO): generate images, upload by drag and drop and make a video, cancel
 * a pending job, page through jobs; screenshots against baselines at desktop and phone width; axe-core checks.
 */
import type { Browser, Page } from 'playwright-core';
import { formatDollars } from '@genmedia/client';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newJobId } from '../../../src/jobs/submit';
import { createTestAccount, type TestAccount } from '../../support/accounts';
import { eventually } from '../../support/eventually';
import { post, startE2eStack, waitForFinal, type E2eStack } from '../../integration/e2e/e2eStack';
import {
  compareWithBaseline,
  dropFile,
  launchChromium,
  MAX_DIFF_RATIO,
  openConsole,
  screenshotsOf,
  seriousAccessibilityViolations,
  WIDTHS,
} from './consoleSupport';
import { pinAccountTimes } from './pinnedTimes';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const ELEMENTS_VIDEO = 'motionworks/reel-2/image-to-video-elements';
/** No worker serves this provider in these tests: its jobs stay pending. */
const ALWAYS_PENDING = 'lumina/lumi-xl/text-to-image';

/** The few browser types these checks use (the project compiles without the DOM library). */
interface VideoElement {
  readyState: number;
  duration: number;
  currentTime: number;
  muted: boolean;
  play(): Promise<void>;
}
interface BrowserGlobals {
  document: { documentElement: { scrollWidth: number } };
  sessionStorage: { getItem(key: string): string | null };
}

let stack: E2eStack;
let browser: Browser;
let account: TestAccount;
const jobs: { image?: string; video?: string } = {};
/** The screenshots show the account's history as if written on this day (its times pinned), and read that afternoon. */
const SHOWN_WRITTEN_AT = new Date('2026-03-14T09:26:00Z');
const SHOWN_READ_AT = new Date('2026-03-14T15:00:00Z');

beforeAll(async () => {
  // Loopback webhook receivers are allowed, so a job can have a (failing) delivery log.
  stack = await startE2eStack({ providers: ['pixelforge', 'motionworks'], env: { WEBHOOK_ALLOW_PRIVATE: '1' } });
  account = await createTestAccount(stack.prisma, { name: 'Console Studio', maxConcurrentJobs: 10 });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function balance(accountId: string): Promise<bigint> {
  return (await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents;
}

async function estimateText(page: Page): Promise<string> {
  return (await page.getByTestId('estimate-total').textContent()) ?? '';
}

describe('generating from the console', () => {
  it('signs in, finds the text-to-image model, prices two images, submits, follows progress and shows both images', async () => {
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.getByLabel('Search').fill('forge pro');
    await page.getByRole('link', { name: 'Forge Pro' }).click();
    await page.getByRole('heading', { name: 'Forge Pro' }).waitFor();

    await page.getByLabel('Prompt').fill('a lighthouse at dusk');
    await expect.poll(() => estimateText(page)).toBe('$0.045');
    await page.getByLabel('Num images').selectOption('2');
    await expect.poll(() => estimateText(page)).toBe('$0.09');
    const before = await balance(account.accountId);

    await page.getByRole('button', { name: 'Generate for $0.09' }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    jobs.image = page.url().split('/').pop()!;
    await expect.poll(() => page.getByRole('progressbar', { name: 'Progress' }).count()).toBe(1);
    await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });

    const images = page.getByRole('img', { name: /^Output \d$/ });
    await expect.poll(() => images.count()).toBe(2);
    await expect.poll(() => images.evaluateAll((els) => els.every((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0))).toBe(true);
    await page.getByRole('button', { name: 'Open image 1 full size' }).click();
    const full = page.getByRole('dialog', { name: 'Full-size image' }).getByRole('img');
    await expect.poll(() => full.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Close' }).click();

    // What the estimate said is what was charged, once.
    expect(before - (await balance(account.accountId))).toBe(90_000n);
    expect(errors).toEqual([]);
  }, 120_000);

  it('uploads a PNG by drag and drop, submits the elements video model with one element, and plays the video', async () => {
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.goto(`${stack.url}/console/models/${ELEMENTS_VIDEO}`);
    await page.getByRole('heading', { name: 'Reel 2 Elements' }).waitFor();
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#2563eb' } }).png().toBuffer();

    await page.getByLabel('Prompt').fill('Ava walks along the pier');
    await dropFile(page, page.locator('[data-field="image_url"] .dropzone'), 'scene.png', 'image/png', png);
    await page.getByText('Uploaded scene.png').waitFor();
    await dropFile(page, page.locator('[data-field="elements[0].characterImages[0]"] .dropzone'), 'ava.png', 'image/png', png);
    await page.getByText('Uploaded ava.png').waitFor();
    await page.locator('[data-field="elements[0].name"] input').fill('Ava');
    await page.getByLabel('Duration').selectOption('3');
    await expect.poll(() => estimateText(page)).toBe('$0.255');

    await page.getByRole('button', { name: /^Generate for/ }).click();
    await page.waitForURL(/\/console\/jobs\/job_/);
    jobs.video = page.url().split('/').pop()!;
    await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 90_000 });

    const video = page.locator('video').first();
    await expect.poll(() => video.evaluate((v) => (v as unknown as VideoElement).readyState)).toBeGreaterThanOrEqual(1);
    const duration = await video.evaluate((v) => (v as unknown as VideoElement).duration);
    expect(duration).toBeGreaterThan(2.8);
    expect(duration).toBeLessThan(3.3);
    await video.evaluate((v) => {
      const el = v as unknown as VideoElement;
      el.muted = true;
      return el.play();
    });
    await expect.poll(() => video.evaluate((v) => (v as unknown as VideoElement).currentTime)).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  }, 150_000);

  it('shows a pending job its place in line and the time left, in the list and on its page, then cancels it and shows the refund', async () => {
    const submitted = (await post(`${stack.url}/v1/jobs/submit`, account.apiKey, { model: ALWAYS_PENDING, input: { prompt: 'never started' } })).body as {
      jobId: string;
      costMicroCents: number;
    };
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey);
    await page.goto(`${stack.url}/console/jobs`);
    const row = page.locator(`tr[data-job-id="${submitted.jobId}"]`);
    await row.getByTestId('place-in-line').waitFor();
    expect(await row.getByTestId('place-in-line').textContent()).toMatch(/place 1 in line/);
    expect(await row.getByTestId('time-left').textContent()).toMatch(/done (in \d+ (s|min)|any moment)/);

    await page.goto(`${stack.url}/console/jobs/${submitted.jobId}`);
    await page.getByTestId('job-status').filter({ hasText: 'pending' }).waitFor();
    const status = page.getByRole('region', { name: 'Status' });
    expect(await status.getByTestId('place-in-line').textContent()).toMatch(/place 1 in line/);
    expect(await status.getByTestId('time-left').textContent()).toMatch(/done (in \d+ (s|min)|any moment)/);
    const before = await balance(account.accountId);

    await page.getByRole('button', { name: 'Cancel and refund' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'cancelled' }).waitFor();
    const refund = formatDollars(submitted.costMicroCents);
    await expect.poll(() => page.getByTestId('refund').textContent()).toBe(refund);
    expect(await page.getByText(`Cancelled; ${refund} refunded.`).count()).toBe(1);
    expect((await balance(account.accountId)) - before).toBe(BigInt(submitted.costMicroCents));
    expect(errors).toEqual([]);
  }, 60_000);

  it('pages through 45 jobs newest first with none twice and none missing', async () => {
    const lister = await createTestAccount(stack.prisma, { name: 'Many jobs' });
    const start = Date.UTC(2026, 0, 1);
    const ids = Array.from({ length: 45 }, (_, i) => ({ id: newJobId(), createdAt: new Date(start + i * 60_000) }));
    // Two jobs in the same millisecond: the cursor must still order them, the later inserted first.
    ids[20].createdAt = ids[21].createdAt;
    await stack.prisma.job.createMany({
      data: ids.map(({ id, createdAt }) => ({
        id,
        accountId: lister.accountId,
        modelSlug: TEXT_TO_IMAGE,
        modelId: TEXT_TO_IMAGE,
        versionId: 'v2',
        providerId: 'pixelforge',
        status: 'failed' as const,
        input: { prompt: 'listed' },
        costMicroCents: 0n,
        estimatedCompletionTime: createdAt,
        createdAt,
      })),
    });
    const { page, errors } = await openConsole(browser, stack.url, lister.apiKey);
    await page.getByRole('link', { name: 'Jobs' }).click();
    const rows = page.locator('tr[data-job-id]');
    await expect.poll(() => rows.count()).toBe(20);
    while (await page.getByRole('button', { name: 'Load more' }).count()) {
      const shown = await rows.count();
      await page.getByRole('button', { name: 'Load more' }).click();
      await expect.poll(() => rows.count()).toBeGreaterThan(shown);
    }
    const listed = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-job-id')));
    const expected = [...ids].reverse().map((j) => j.id);
    expect(new Set(listed).size).toBe(45);
    expect(listed).toEqual(expected);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('more of the job page', () => {
  // Accounts of their own here, so the main account's ledger (in the account screenshots) is the same every run.
  it('deletes a finished job only after a confirmation, and shows what is left of it', async () => {
    // An account of its own: the shared one's ledger is in the screenshots.
    const owner = await createTestAccount(stack.prisma);
    const submitted = await post(`${stack.url}/v1/jobs/submit`, owner.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'a sketch to forget' } });
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(201);
    const jobId: string = submitted.body.jobId;
    await waitForFinal(stack, owner.apiKey, jobId);
    const { page, errors } = await openConsole(browser, stack.url, owner.apiKey);
    await page.goto(`${stack.url}/console/jobs/${jobId}`);
    await page.getByRole('img', { name: 'Output 1' }).waitFor();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Delete this job?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Keep it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect((await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } })).contentErasedAt).toBeNull();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Yes, delete' }).click();
    await page.getByTestId('erased').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('img', { name: 'Output 1' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Delete', exact: true }).count()).toBe(0);
    const erased = await stack.prisma.job.findUniqueOrThrow({ where: { id: jobId } });
    expect(erased).toMatchObject({ input: {}, outputs: [], outputsDeletedReason: 'client', contentErasedAt: expect.any(Date) });
    expect(errors).toEqual([]);
  }, 90_000);

  it('a failed job shows its error code and message and the refund', async () => {
    const failing = await createTestAccount(stack.prisma);
    const { page, errors } = await openConsole(browser, stack.url, failing.apiKey);
    await page.goto(`${stack.url}/console/models/${TEXT_TO_IMAGE}`);
    await page.getByLabel('Prompt').fill('[fail:permanent] a broken render');
    await expect.poll(() => estimateText(page)).toBe('$0.045');
    await page.getByRole('button', { name: 'Generate for $0.045' }).click();
    await page.getByTestId('job-status').filter({ hasText: 'failed' }).waitFor({ timeout: 60_000 });
    const alert = page.getByRole('alert').filter({ hasText: 'INJECTED_FAILURE' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('$0.045 was refunded.');
    expect(await page.getByTestId('refund').textContent()).toBe('$0.045');
    expect(errors).toEqual([]);
  }, 90_000);

  it('a job tried on more than one route lists each route and how it ended', async () => {
    // Both routes down: whatever order the routes' health puts them in (other tests' relay jobs count), two attempts.
    const routed = await createTestAccount(stack.prisma);
    const lumina = await stack.workers.startProviderWorker('lumina');
    try {
      const submitted = await post(`${stack.url}/v1/jobs/submit`, routed.apiKey, {
        model: 'genmedia/relay/text-to-image',
        input: { prompt: 'a relay at dusk [fail:route:pixelforge] [fail:route:lumina]' },
      });
      expect(submitted.status).toBe(201);
      await waitForFinal(stack, routed.apiKey, submitted.body.jobId);
      const { page, errors } = await openConsole(browser, stack.url, routed.apiKey);
      await page.goto(`${stack.url}/console/jobs/${submitted.body.jobId}`);
      const table = page.getByRole('region', { name: 'Routes tried' }).getByRole('table');
      await table.waitFor();
      const rows = await table.locator('tbody tr').allTextContents();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatch(/^1(pixelforge|lumina)failed · INJECTED_OUTAGE/);
      expect(rows[1]).toMatch(/^2(pixelforge|lumina)failed · INJECTED_OUTAGE/);
      expect(new Set(rows.map((row) => /^\d(pixelforge|lumina)/.exec(row)![1]))).toEqual(new Set(['pixelforge', 'lumina']));
      expect(errors).toEqual([]);
    } finally {
      await lumina.stop();
    }
  }, 90_000);

  it('a double click on Generate makes one job and one charge', async () => {
    const clicker = await createTestAccount(stack.prisma);
    const { page } = await openConsole(browser, stack.url, clicker.apiKey);
    await page.goto(`${stack.url}/console/models/${TEXT_TO_IMAGE}`);
    await page.getByLabel('Prompt').fill('one job only');
    await expect.poll(() => estimateText(page)).toBe('$0.045');
    await page.getByRole('button', { name: 'Generate for $0.045' }).dblclick();
    await page.waitForURL(/\/console\/jobs\/job_/);
    await page.waitForTimeout(1_000);
    expect(await stack.prisma.job.count({ where: { accountId: clicker.accountId } })).toBe(1);
    expect(await stack.prisma.ledgerEntry.count({ where: { accountId: clicker.accountId, kind: 'charge' } })).toBe(1);
  });

  it('shows the webhook deliveries of a job and starts a redelivery', async () => {
    const hooked = await createTestAccount(stack.prisma);
    // Nothing listens there: the attempts fail and are logged.
    const submitted = (
      await post(`${stack.url}/v1/jobs/submit`, hooked.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'with a webhook' }, webhookUrl: 'https://127.0.0.1:9/hooks' })
    ).body as { jobId: string };
    const { page, errors } = await openConsole(browser, stack.url, hooked.apiKey);
    await page.goto(`${stack.url}/console/jobs/${submitted.jobId}`);
    await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor({ timeout: 60_000 });
    const log = page.getByRole('region', { name: 'Webhook deliveries' });
    await log.getByText('job.completed → https://127.0.0.1:9/hooks').waitFor({ timeout: 20_000 });
    await expect.poll(() => log.locator('tbody tr').count(), { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
    await log.getByRole('button', { name: 'Redeliver' }).click();
    await log.getByRole('status').filter({ hasText: 'Redelivery started.' }).waitFor();
    expect(errors).toEqual([]);
  }, 90_000);
});

describe('what people see', () => {
  const pages: Array<[string, () => string]> = [
    ['catalog', () => '/console/'],
    ['model', () => `/console/models/${TEXT_TO_IMAGE}`],
    ['job-image', () => `/console/jobs/${jobs.image}`],
    ['job-video', () => `/console/jobs/${jobs.video}`],
    ['account', () => '/console/account'],
  ];

  beforeAll(async () => {
    // Whatever day this runs, the account shows the history it had on SHOWN_WRITTEN_AT.
    await pinAccountTimes(stack.prisma, account.accountId, SHOWN_WRITTEN_AT);
  });

  const shots = screenshotsOf(pages);

  it.each(shots)('$name at $width width, in a browser $machine, matches its baseline and has no serious accessibility violation', async ({ name, pathOf, width, machine }) => {
    const { page, errors } = await openConsole(browser, stack.url, account.apiKey, width, 'Models', { clock: SHOWN_READ_AT, machine });
    await page.goto(`${stack.url}${pathOf()}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    if (name.startsWith('job')) {
      await page.getByTestId('job-status').filter({ hasText: 'completed' }).waitFor();
      // Each output's Content Credentials, read by the API after the job: the shot shows them read.
      await page.getByTestId('credential-state').first().waitFor();
    }
    // Whatever differs from run to run: ids, generated media, the estimate (it may still be on its way), the
    // outputs' retention (on the server's clock) and the spend per day, whose 30 days end on the server's today.
    const mask = [
      page.locator('code'),
      page.locator('.gallery img, .gallery video'),
      page.locator('[data-testid="estimate-total"]'),
      page.locator('[data-testid="output-retention"] time'),
      page.locator('.spend-chart'),
    ];
    const difference = await compareWithBaseline(page, `${name}-${width}`, mask, { machine });
    expect(difference, `${name}-${width} in a browser ${machine}: see test-output/console`).toBeLessThanOrEqual(MAX_DIFF_RATIO);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    // Nothing wider than the window: usable at a phone's width without sideways scrolling.
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTHS[width]);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('spend limits', () => {
  it("the account page shows the account's and the key's limits, what is spent and what is left", async () => {
    const limited = await createTestAccount(stack.prisma, { name: 'Limited Studio', dailyLimitMicroCents: 90_000n });
    await stack.prisma.apiKey.update({ where: { id: limited.keyId }, data: { monthlyLimitMicroCents: 2_000_000n } });
    const submitted = await post(`${stack.url}/v1/jobs/submit`, limited.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: 'within the limit' } });
    expect(submitted.status).toBe(201);
    const { page, errors } = await openConsole(browser, stack.url, limited.apiKey, 'desktop');
    await page.goto(`${stack.url}/console/account`);
    const accountDaily = page.locator('section[aria-labelledby="limits-title"] table.limits').first().locator('tr[data-limit="daily"]');
    await expect.poll(async () => (await accountDaily.textContent()) ?? '', { timeout: 10_000 }).toMatch(/Daily\s*\$0\.09\s*\$0\.045\s*\$0\.045/);
    const keyMonthly = page.locator('section[aria-labelledby="limits-title"] table.limits').nth(1).locator('tr[data-limit="monthly"]');
    expect(await keyMonthly.textContent()).toMatch(/Monthly\s*\$2(\.00)?\s*\$0\.045\s*\$1\.955/);
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('error and empty states', () => {
  it('a revoked key is sent back to sign-in with a clear message', async () => {
    const revoked = await createTestAccount(stack.prisma);
    await stack.prisma.apiKey.update({ where: { id: revoked.keyId }, data: { revokedAt: new Date() } });
    const { page } = await openConsole(browser, stack.url, null);
    await page.getByLabel('API key').fill(revoked.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key is not accepted: it is unknown or has been revoked.').waitFor();
    expect(await page.getByLabel('API key').inputValue()).toBe('');
  });

  it('an empty key is refused on the form; the key never appears in the URL', async () => {
    const { page } = await openConsole(browser, stack.url, null);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('Enter an API key.').waitFor();
    await page.getByLabel('API key').fill(account.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Models' }).waitFor();
    expect(page.url()).not.toContain(account.apiKey);
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).sessionStorage.getItem('genmedia.apiKey'))).toBe(account.apiKey);
  });

  it('insufficient balance at submit shows the balance and the price, and nothing is charged', async () => {
    const poor = await createTestAccount(stack.prisma, { creditsMicroCents: 10_000n });
    const { page } = await openConsole(browser, stack.url, poor.apiKey);
    await page.goto(`${stack.url}/console/models/${TEXT_TO_IMAGE}`);
    await page.getByLabel('Prompt').fill('too expensive');
    await expect.poll(() => estimateText(page)).toBe('$0.045');
    await page.getByRole('button', { name: 'Generate for $0.045' }).click();
    await page.getByText('This job costs $0.045 and the balance is $0.01. Nothing was charged.').waitFor();
    expect(await balance(poor.accountId)).toBe(10_000n);
  });

  it('a rate-limited submit says when to try again, and the catalog shows the segment model to its segment only', async () => {
    const model = 'motionworks/reel-turbo/text-to-video'; // 10 requests per minute, segment "beta"
    const beta = await createTestAccount(stack.prisma, { segments: ['beta'], maxConcurrentJobs: 70, creditsMicroCents: 1_000_000_000n });
    const outsider = await openConsole(browser, stack.url, account.apiKey);
    await outsider.page.getByRole('link', { name: 'Forge Pro' }).waitFor();
    expect(await outsider.page.getByRole('link', { name: 'Reel Turbo' }).count()).toBe(0);

    const { page } = await openConsole(browser, stack.url, beta.apiKey);
    await page.getByRole('link', { name: 'Reel Turbo' }).waitFor();
    const notice = page.getByRole('alert').filter({ hasText: 'Rate limited' });
    // The limit counts per UTC minute. Fill the current window until the API refuses (should the minute turn while
    // filling it, a fresh window of 10 refuses by the 21st), then submit from the console at once; should the minute
    // have turned in between (a slow machine), the console's job goes through and the next round starts early in a
    // fresh window.
    let refused = false;
    for (let round = 0; round < 3 && !refused; round++) {
      let filled = false;
      for (let i = 0; i < 21 && !filled; i++) {
        const { status, body } = await post(`${stack.url}/v1/jobs/submit`, beta.apiKey, { model, input: { prompt: `clip ${round}.${i}` } });
        expect([201, 429]).toContain(status);
        filled = status === 429;
        // Only the submit counts towards the limit: a filler still pending is cancelled rather than rendered.
        if (status === 201) await post(`${stack.url}/v1/jobs/${body.jobId}/cancel`, beta.apiKey);
      }
      expect(filled).toBe(true);
      await page.goto(`${stack.url}/console/models/${model}`);
      await page.getByLabel('Prompt').fill('one too many');
      await page.getByRole('button', { name: /^Generate for/ }).click();
      // Whichever comes first decides; the other one's later timeout is caught here.
      refused = await Promise.race([
        notice.waitFor().then(() => true, () => false),
        page.waitForURL(/\/console\/jobs\/job_/).then(() => false, () => false),
      ]);
    }
    expect(refused).toBe(true);
    expect(await notice.textContent()).toMatch(/Try again in \d+ s\./);
  }, 120_000);

  it('a key without check_status sees the jobs and account pages greyed out', async () => {
    const limited = await createTestAccount(stack.prisma, { scopes: ['list_models', 'submit_job'] });
    const { page } = await openConsole(browser, stack.url, limited.apiKey);
    await page.getByText('Not allowed with this key').first().waitFor();
    expect(await page.getByRole('link', { name: 'Jobs' }).getAttribute('aria-disabled')).toBe('true');
  });

  it('an account without jobs gets an empty list with a way forward', async () => {
    const fresh = await createTestAccount(stack.prisma);
    const { page } = await openConsole(browser, stack.url, fresh.apiKey);
    await page.getByRole('link', { name: 'Jobs' }).click();
    await page.getByText('No jobs yet.').waitFor();
    expect(await page.getByRole('link', { name: 'Pick a model' }).count()).toBe(1);
  });

  it('the API going away mid-session shows that it cannot be reached, not a blank page', async () => {
    const { page } = await openConsole(browser, stack.url, account.apiKey);
    await page.route('**/v1/catalog/models**', (route) => route.abort('connectionrefused'));
    await page.getByLabel('Search').fill('anything');
    await page.getByText('The API cannot be reached').waitFor({ timeout: 20_000 });
  }, 30_000);
});

describe('serving', () => {
  it('serves hashed assets for a year and the page uncached, for any console path', async () => {
    const page = await fetch(`${stack.url}/console/jobs/job_x`);
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    const asset = /\/console\/assets\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    const script = await fetch(`${stack.url}${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Same origin only, plus the storage that serves outputs and takes uploads.
    expect(page.headers.get('content-security-policy')).toBe(
      `default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob: ${stack.config.minio.publicEndpoint}; ` +
        `media-src 'self' blob: ${stack.config.minio.publicEndpoint}; connect-src 'self' ${stack.config.minio.publicEndpoint}; frame-ancestors 'none'`,
    );
    expect((await fetch(`${stack.url}/console`, { redirect: 'manual' })).headers.get('location')).toBe('/console/');
    await eventually(async () => ((await fetch(`${stack.url}/console/assets/missing.js`)).status === 404 ? true : undefined), 2_000);
  });
});
