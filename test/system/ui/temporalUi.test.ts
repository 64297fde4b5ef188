/**
 * The Temporal Web UI as an operator uses it: a job is found in the workflow list by filtering on its account and
 * status, in a real (headless) Chromium against the UI of the test stack's Temporal dev server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobWorkflowId } from '../../../src/contracts/workflows/job';
import { createTestAccount, eventually, startTestStack, type TestStack } from '../../support/stack';
import { waitForFinal } from '../../support/api';
import { imageJob, post } from '../../integration/jobs/helpers';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let stack: TestStack;
let workDir: string;
let browser: BrowserContext;

function temporalUiUrl(): string {
  const url = process.env.TEMPORAL_UI_URL;
  if (!url) throw new Error('TEMPORAL_UI_URL is not set: run through `npm test`, which serves the Temporal UI of its stack');
  return url;
}

beforeAll(async () => {
  temporalUiUrl();
  workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'genmedia-ui-test-'));
  stack = await startTestStack({ providers: ['pixelforge'] });
  // A fresh profile per run; playwright passes it as --user-data-dir.
  browser = await chromium.launchPersistentContext(path.join(workDir, 'profile'), {
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1600, height: 1000 },
  });
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
  if (workDir) fs.rmSync(path.join(workDir, 'profile'), { recursive: true, force: true });
  // Screenshots of failures stay for inspection; an empty folder goes.
  if (workDir && fs.readdirSync(workDir).length === 0) fs.rmSync(workDir, { recursive: true, force: true });
});

async function submitAndWait(apiKey: string, prompt: string, status: 'completed' | 'failed'): Promise<string> {
  const submitted = await post(`${stack.url}/v1/jobs/submit`, apiKey, imageJob({ prompt }));
  expect(submitted.status).toBe(201);
  const jobId: string = submitted.body.jobId;
  const final = await waitForFinal(stack, apiKey, jobId, 30_000);
  expect(final.status).toBe(status);
  return jobId;
}

/** Waits until Temporal's visibility store returns exactly `expected` for the query, so the UI sees the same. */
async function visible(query: string, expected: string[]): Promise<void> {
  await eventually(async () => {
    const ids: string[] = [];
    for await (const wf of stack.api.deps.temporal.workflow.list({ query })) ids.push(wf.workflowId);
    return ids.sort().join() === [...expected].sort().join() ? true : undefined;
  });
}

function workflowListUrl(query: string): string {
  const namespace = encodeURIComponent(stack.config.temporal.namespace);
  return `${temporalUiUrl()}/namespaces/${namespace}/workflows?query=${encodeURIComponent(query)}`;
}

/** Runs `check` on a fresh page; on failure a screenshot of the page goes into the test's folder. */
async function onPage(name: string, check: (page: Page) => Promise<void>): Promise<void> {
  const page = await browser.newPage();
  try {
    await check(page);
  } catch (err) {
    const file = path.join(workDir, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true }).catch(() => undefined);
    throw new Error(`${(err as Error).message}\nscreenshot: ${file} (page ${page.url()})`, { cause: err });
  } finally {
    await page.close();
  }
}

const workflowLink = (page: Page, jobId: string) => page.getByRole('link', { name: jobWorkflowId(jobId), exact: true });

describe('Temporal Web UI', () => {
  it('lists a job to an operator filtering by AccountId and JobStatus', async () => {
    const account = await createTestAccount(stack.prisma, { creditsMicroCents: 1_000_000n });
    const completedJob = await submitAndWait(account.apiKey, 'a lighthouse seen from the UI', 'completed');
    const failedJob = await submitAndWait(account.apiKey, 'a lighthouse [fail:permanent]', 'failed');

    const completedQuery = `AccountId="${account.accountId}" AND JobStatus="completed"`;
    const failedQuery = `AccountId="${account.accountId}" AND JobStatus="failed"`;
    await visible(completedQuery, [jobWorkflowId(completedJob)]);
    await visible(failedQuery, [jobWorkflowId(failedJob)]);

    await onPage('completed-filter', async (page) => {
      await page.goto(workflowListUrl(completedQuery));
      const link = workflowLink(page, completedJob);
      await link.waitFor({ state: 'visible', timeout: 20_000 });
      expect(await link.getAttribute('href')).toContain(encodeURIComponent(jobWorkflowId(completedJob)));
      expect(await workflowLink(page, failedJob).count()).toBe(0);
    });

    // The same filter on the failed status: the list has loaded once the failed job shows, and the completed one is not in it.
    await onPage('failed-filter', async (page) => {
      await page.goto(workflowListUrl(failedQuery));
      await workflowLink(page, failedJob).waitFor({ state: 'visible', timeout: 20_000 });
      expect(await workflowLink(page, completedJob).count()).toBe(0);
    });
  });
});
