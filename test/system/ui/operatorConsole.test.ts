/**
 * The console as an operator uses it, in headless Chromium against the real stack: an admin key gets the Operators
 * area (accounts, an account's page, the audit log) and no client pages, a client key never sees it. A tenant's life
 * from the console: search and create an account, grant credits (a double submit credits once), issue a key (its
 * secret shown once), set a daily limit, revoke the key (the API refuses it), and the audit log of each change.
 * No provider worker runs: submitted jobs stay pending and charged, which is all the usage chart needs.
 */
import type { Browser, Page } from 'playwright-core';
import { formatDollars } from '@genmedia/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminKey, createTestAccount, type TestAccount } from '../../support/accounts';
import { bearer, get, post, request } from '../../support/api';
import { startTestStack, type TestStack } from '../../support/stack';
import {
  compareWithBaseline,
  launchChromium,
  MAX_DIFF_RATIO,
  openConsole,
  screenshotsOf,
  seriousAccessibilityViolations,
  WIDTHS,
  type Width,
} from './consoleSupport';
import { pinAccountTimes } from './pinnedTimes';

const TEXT_TO_IMAGE = 'pixelforge/forge-pro/text-to-image';
const ONE_IMAGE_MICRO_CENTS = 45_000;

interface BrowserGlobals {
  document: { documentElement: { scrollWidth: number }; querySelector(selector: string): { requestSubmit(): void } | null };
}

let stack: TestStack;
let browser: Browser;
let adminKey: string;
let client: TestAccount;
/** An account made through the API with a fixed history, for the screenshots. */
let shown: { accountId: string };
/** The screenshots' account as written on this day (its times pinned), and the page read on the same day. */
const SHOWN_WRITTEN_AT = new Date('2026-03-14T09:26:00Z');
const SHOWN_READ_AT = new Date('2026-03-14T15:00:00Z');

const admin = (path: string) => `${stack.url}/v1/admin${path}`;

async function createAccountThroughApi(name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const created = await post(admin('/accounts'), adminKey, { name, ...extra });
  expect(created.status).toBe(201);
  return created.body.accountId as string;
}

/**
 * Another operator's day with another tenant, as other test files write into the shared database: an account with
 * credits, a key, a job and changed limits, so the audit log and the ledger hold entries that are not the test's.
 */
async function writeUnrelatedHistory(label: string): Promise<void> {
  const accountId = await createAccountThroughApi(`Unrelated ${label} ${Date.now().toString(36)}`, { plan: 'standard' });
  await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 1_234_567, reason: 'payment', reference: `pi_${label}` });
  const key = await post(admin(`/accounts/${accountId}/keys`), adminKey, { name: `unrelated ${label}`, scopes: ['submit_job'] });
  expect((await post(`${stack.url}/v1/jobs/submit`, key.body.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: label } })).status).toBe(201);
  expect((await request(admin(`/accounts/${accountId}`), { method: 'PATCH', headers: bearer(adminKey, { 'content-type': 'application/json' }), body: JSON.stringify({ maxConcurrentJobs: 7 }) })).status).toBe(200);
}

beforeAll(async () => {
  stack = await startTestStack();
  // As `genmedia admin keys create --scopes admin` does on the host: the admin scope alone.
  adminKey = await createAdminKey(stack.prisma);
  client = await createTestAccount(stack.prisma, { name: 'Client Studio' });

  await writeUnrelatedHistory('before');
  const accountId = await createAccountThroughApi('Screenshot Studio', { plan: 'business', maxConcurrentJobs: 4, spendLimits: { dailyMicroCents: 2_000_000 } });
  await writeUnrelatedHistory('between');
  await post(admin(`/accounts/${accountId}/credits`), adminKey, { amountMicroCents: 5_000_000, reason: 'payment', reference: 'pi_shot' }, { 'idempotency-key': 'pi_shot' });
  const key = await post(admin(`/accounts/${accountId}/keys`), adminKey, { name: 'backend', scopes: ['submit_job', 'check_status'] });
  expect(key.status).toBe(201);
  for (let i = 0; i < 2; i++) {
    const submitted = await post(`${stack.url}/v1/jobs/submit`, key.body.apiKey, { model: TEXT_TO_IMAGE, input: { prompt: `shot ${i}` } });
    expect(submitted.status).toBe(201);
  }
  shown = { accountId };
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const openAsOperator = (width: Width = 'desktop') => openConsole(browser, stack.url, adminKey, width, 'Accounts');

async function ledgerTopups(accountId: string): Promise<number> {
  return stack.prisma.ledgerEntry.count({ where: { accountId, kind: 'topup' } });
}

async function accountRow(page: Page, name: string) {
  return page.locator('tr[data-account-id]').filter({ has: page.getByRole('link', { name, exact: true }) });
}

describe('who sees the Operators area', () => {
  it('an admin key lands on the accounts, has no client pages in its navigation, and is told so on one', async () => {
    const { page, errors } = await openAsOperator();
    expect(page.url()).toBe(`${stack.url}/console/admin/accounts`);
    const operators = page.getByRole('navigation', { name: 'Operators' });
    expect(await operators.getByRole('link').allTextContents()).toEqual(['Accounts', 'Audit log']);
    expect(await page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    // The admin key may not read an account of its own: no error banner for that.
    expect(await page.getByText('Reading the account').count()).toBe(0);

    await page.goto(`${stack.url}/console/jobs`);
    await page.getByRole('heading', { name: 'Not a client key' }).waitFor();
    await page.getByRole('link', { name: 'Accounts' }).first().click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a client key sees the console as before, without the Operators area, and is refused its pages', async () => {
    const { page, errors } = await openConsole(browser, stack.url, client.apiKey);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Operators' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);

    await page.goto(`${stack.url}/console/admin/accounts`);
    await page.getByRole('heading', { name: 'Operators only' }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

describe("a tenant's life from the console", () => {
  const suffix = Date.now().toString(36);
  const name = `Northwind Media ${suffix}`;
  let accountId: string;
  let issuedKey: string;

  it('searches accounts by name on the server and pages through them', async () => {
    await createAccountThroughApi(`Zephyr Labs ${suffix}`);
    await createAccountThroughApi(`Zephyr Works ${suffix}`);
    for (let i = 0; i < 23; i++) await createAccountThroughApi(`Paged ${suffix} ${String(i).padStart(2, '0')}`);
    const { page, errors } = await openAsOperator();
    const rows = page.locator('tr[data-account-id]');

    await page.getByLabel('Search by name').fill(`zephyr l`);
    await expect.poll(() => rows.allTextContents()).toEqual([expect.stringContaining(`Zephyr Labs ${suffix}`)]);

    await page.getByLabel('Search by name').fill(`paged ${suffix}`);
    await expect.poll(() => rows.count()).toBe(20);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(23);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    // None twice, none missing.
    const names = await rows.locator('td:first-child').allTextContents();
    expect([...names].sort()).toEqual(Array.from({ length: 23 }, (_, i) => `Paged ${suffix} ${String(i).padStart(2, '0')}`));

    await page.getByLabel('Search by name').fill(`nobody ${suffix}`);
    await page.getByText(`No account's name contains "nobody ${suffix}".`).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('creates an account with its limits in dollars and opens it', async () => {
    const { page, errors } = await openAsOperator();
    const form = page.getByRole('region', { name: 'Create an account' });
    await form.getByRole('button', { name: 'Create account' }).click();
    await form.getByText('Enter a name.').waitFor();

    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Plan').fill('business');
    await form.getByLabel('Max concurrent jobs').fill('3');
    await form.getByLabel('Monthly limit ($)').fill('500');
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name }).waitFor();
    accountId = page.url().split('/').pop()!;
    expect(accountId).toMatch(/^acc_/);

    const stored = await get(admin(`/accounts/${accountId}`), adminKey);
    expect(stored.body).toMatchObject({ name, plan: 'business', maxConcurrentJobs: 3, balanceMicroCents: 0 });
    expect(stored.body.spendLimits).toMatchObject({ dailyMicroCents: null, monthlyMicroCents: 500_000_000 });
    const monthly = page.locator('.limits tr[data-limit="monthly"]');
    expect(await monthly.locator('td').first().textContent()).toBe('$500.00');
    expect(await page.getByTestId('admin-balance').textContent()).toBe('$0.00');

    // Found again by its name.
    await page.getByRole('navigation', { name: 'Operators' }).getByRole('link', { name: 'Accounts' }).click();
    await page.getByLabel('Search by name').fill(`northwind media ${suffix}`);
    await (await accountRow(page, name)).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('grants credits once for a double click and once for two submits of the same form, and shows the balance', async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    const form = page.getByRole('region', { name: 'Grant credits' });
    await form.getByLabel('Amount ($)').fill('25');
    await form.getByLabel('Reason').fill('payment');
    await form.getByLabel('Reference').fill('pi_console_1');
    await form.getByRole('button', { name: 'Grant credits' }).dblclick();
    await form.getByText('Granted $25.00; the balance is now $25.00.').waitFor();
    await expect.poll(() => page.getByTestId('admin-balance').textContent()).toBe('$25.00');
    expect(await ledgerTopups(accountId)).toBe(1);

    // Two submits within one task, before the page can disable the button: only the Idempotency-Key stands between them.
    await form.getByLabel('Amount ($)').fill('10.5');
    await form.getByLabel('Reason').fill('bonus');
    await page.evaluate(() => {
      const web = globalThis as unknown as BrowserGlobals;
      const credits = web.document.querySelector('section[aria-labelledby="credits-title"] form')!;
      credits.requestSubmit();
      credits.requestSubmit();
    });
    await form.getByText('Granted $10.50; the balance is now $35.50.').waitFor();
    await expect.poll(() => page.getByTestId('admin-balance').textContent()).toBe('$35.50');
    expect(await ledgerTopups(accountId)).toBe(2);
    expect((await stack.prisma.account.findUniqueOrThrow({ where: { id: accountId } })).balanceMicroCents).toBe(35_500_000n);

    // The ledger on the page shows both grants.
    const ledger = page.getByRole('region', { name: 'Ledger' });
    await expect.poll(() => ledger.locator('tbody tr').count()).toBe(2);
    expect(await ledger.locator('tbody tr').first().textContent()).toContain('$10.50');
    expect(errors).toEqual([]);
  }, 60_000);

  it('issues a key whose secret is shown once, with a copy button, and works', async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    const form = page.getByRole('form', { name: 'Issue a key' });
    await form.getByLabel('Key name').fill('backend');
    await form.getByLabel('upload').uncheck();
    await form.getByRole('button', { name: 'Issue key' }).click();

    const secret = page.getByRole('region', { name: /The new key: copy it now, it is shown once/ });
    await secret.waitFor();
    issuedKey = (await secret.getByTestId('issued-secret').textContent())!;
    expect(issuedKey).toMatch(/^gm_/);
    expect(await secret.getByRole('button', { name: 'Copy' }).count()).toBe(1);
    const account = await get(`${stack.url}/v1/account`, issuedKey);
    expect(account.status).toBe(200);
    expect(account.body.apiKey.scopes).toEqual(['submit_job', 'check_status', 'list_models']);

    const row = page.locator('tr[data-key-id]').filter({ hasText: 'backend' });
    expect(await row.getByTestId('key-status').textContent()).toBe('active');
    await secret.getByRole('button', { name: 'I have stored it' }).click();
    await secret.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(issuedKey);
    // Not in the key listing either: the API keeps only its hash.
    expect(JSON.stringify((await get(admin(`/accounts/${accountId}/keys`), adminKey)).body)).not.toContain(issuedKey);
    expect(errors).toEqual([]);
  }, 60_000);

  it('sets a daily limit and shows what is left of it after a charge', async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    const form = page.getByRole('form', { name: 'Edit limits' });
    await form.getByLabel('Daily limit ($)').fill('abc');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await form.getByText(/Enter an amount in dollars/).waitFor();
    await form.getByLabel('Daily limit ($)').fill('1.50');
    await form.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const daily = page.locator('.limits tr[data-limit="daily"]').first();
    await expect.poll(() => daily.locator('td').first().textContent()).toBe('$1.50');
    expect((await get(admin(`/accounts/${accountId}`), adminKey)).body.spendLimits.dailyMicroCents).toBe(1_500_000);

    expect((await post(`${stack.url}/v1/jobs/submit`, issuedKey, { model: TEXT_TO_IMAGE, input: { prompt: 'charged' } })).status).toBe(201);
    await page.reload();
    await expect.poll(() => daily.locator('td').nth(1).textContent()).toBe(formatDollars(ONE_IMAGE_MICRO_CENTS));
    expect(await daily.locator('td').nth(2).textContent()).toBe(formatDollars(1_500_000 - ONE_IMAGE_MICRO_CENTS));
    // The charge is in the usage chart, by model.
    const usage = page.getByRole('region', { name: 'Usage by model, last 30 days' });
    await usage.getByText(`${TEXT_TO_IMAGE}: $0.045`).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('revokes the key after a confirmation: the key shows revoked and the API refuses it', async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    const row = page.locator('tr[data-key-id]').filter({ hasText: 'backend' });
    await row.getByRole('button', { name: /^Revoke backend/ }).click();
    const confirm = row.getByRole('group', { name: 'Confirm' });
    await confirm.getByText(/this cannot be undone/).waitFor();
    // Keyboard: the confirmation has the focus, Escape-free: Tab to Cancel and back, Enter answers.
    expect(await confirm.getByRole('button', { name: 'Yes, revoke' }).evaluate((el) => el === (el.ownerDocument as unknown as { activeElement: unknown }).activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => row.getByTestId('key-status').textContent()).toBe('revoked');
    const started = Date.now();
    await expect.poll(async () => (await get(`${stack.url}/v1/account`, issuedKey)).status, { timeout: 5_000 }).toBe(401);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await row.getByRole('button', { name: /^Revoke/ }).count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('rotates a key: the replacement secret is shown once and both keys work during the overlap', async () => {
    const old = await post(admin(`/accounts/${accountId}/keys`), adminKey, { name: 'worker', scopes: ['check_status'] });
    expect(old.status).toBe(201);
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    const row = page.locator(`tr[data-key-id="${old.body.key.keyId}"]`);
    await row.getByRole('button', { name: /^Rotate worker/ }).click();
    await row.getByRole('button', { name: 'Yes, rotate' }).click();

    const secret = page.getByRole('region', { name: /The replacement of .*: copy it now, it is shown once/ });
    await secret.waitFor();
    const replacement = (await secret.getByTestId('issued-secret').textContent())!;
    expect(replacement).not.toBe(old.body.apiKey);
    expect((await get(`${stack.url}/v1/account`, replacement)).status).toBe(200);
    expect((await get(`${stack.url}/v1/account`, old.body.apiKey)).status).toBe(200);
    await expect.poll(() => row.textContent()).toContain('replaced by key_');
    expect(await page.locator('tr[data-key-id]').filter({ hasText: 'worker' }).count()).toBe(2);
    expect(errors).toEqual([]);
  }, 60_000);

  it('suspends and unsuspends the account', async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    await page.getByRole('button', { name: 'Suspend account' }).click();
    await page.getByRole('heading', { name }).getByText('suspended').waitFor();
    expect((await get(admin(`/accounts/${accountId}`), adminKey)).body.suspended).toBe(true);
    await page.getByRole('button', { name: 'Unsuspend account' }).click();
    await page.getByRole('heading', { name }).getByText('active').waitFor();
    expect((await get(admin(`/accounts/${accountId}`), adminKey)).body.suspended).toBe(false);
    expect(errors).toEqual([]);
  }, 60_000);

  it("the audit log lists each change, newest first, with who and a readable before and after, and filters by target", async () => {
    const { page, errors } = await openAsOperator();
    await page.goto(`${stack.url}/console/admin/accounts/${accountId}`);
    await page.getByRole('link', { name: 'Audit log of this account' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    expect(await page.getByLabel('Target id').inputValue()).toBe(accountId);
    const rows = page.locator('tr[data-action]');
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))).toEqual([
      'account.update', // unsuspended
      'account.update', // suspended
      'account.update', // the daily limit
      'credits.grant',
      'credits.grant',
      'account.create',
    ]);
    expect(await rows.nth(2).textContent()).toContain('dailyLimitMicroCents: none → $1.50');
    expect(await rows.nth(1).textContent()).toContain('suspended: false → true');
    expect(await rows.nth(3).textContent()).toContain('balanceMicroCents: $25.00 → $35.50');
    expect(await rows.nth(3).textContent()).toContain('reason: — → bonus');
    expect(await rows.nth(5).textContent()).toContain(`name: — → ${name}`);

    // The key's own changes, found by its id.
    const keyId = (await stack.prisma.apiKey.findFirstOrThrow({ where: { accountId, name: 'backend' } })).id;
    await page.getByLabel('Target id').fill(keyId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-action')))).toEqual(['key.revoke', 'key.create']);
    expect(await rows.first().textContent()).toMatch(/revokedAt: none → \w{3} \d+, \d{4}/);

    // Unfiltered: every change, the newest first.
    await page.getByRole('button', { name: 'Show all' }).click();
    await expect.poll(async () => (await rows.count()) >= 10).toBe(true);
    expect(await rows.first().getAttribute('data-action')).toBe('account.update');
    expect(errors).toEqual([]);
  }, 60_000);
});

describe('what operators see', () => {
  const pages: Array<[string, () => string]> = [
    ['operator-account', () => `/console/admin/accounts/${shown.accountId}`],
    ['operator-audit', () => `/console/admin/audit?targetId=${shown.accountId}`],
  ];
  beforeAll(async () => {
    // Whatever day this runs, the account shows the history it had on SHOWN_WRITTEN_AT, read that afternoon.
    await pinAccountTimes(stack.prisma, shown.accountId, SHOWN_WRITTEN_AT);
    await writeUnrelatedHistory('after');
  });

  const shots = screenshotsOf(pages);

  it.each(shots)('$name at $width width, in a browser $machine, matches its baseline and has no serious accessibility violation', async ({ name, pathOf, width, machine }) => {
    const { page, errors } = await openConsole(browser, stack.url, adminKey, width, 'Accounts', { clock: SHOWN_READ_AT, machine });
    await page.goto(`${stack.url}${pathOf()}`);
    await page.locator('main h1').first().waitFor();
    await page.waitForLoadState('networkidle');
    if (name === 'operator-account') await page.locator('.usage-chart').waitFor();
    // Ids differ from run to run (also in the audit filter), and when the daily limit resets is the server's next midnight.
    const mask = [page.locator('code'), page.locator('input[type="search"]')];
    const standIns = [{ locator: page.locator('.limits time'), text: 'Mar 15, 2026, 12:00:00 AM' }];
    const difference = await compareWithBaseline(page, `${name}-${width}`, mask, { standIns, machine });
    expect(difference, `${name}-${width} in a browser ${machine}: see test-output/console`).toBeLessThanOrEqual(MAX_DIFF_RATIO);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTHS[width]);
    expect(errors).toEqual([]);
  }, 60_000);
});
