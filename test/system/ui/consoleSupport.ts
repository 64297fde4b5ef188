/**
 * Headless Chromium for the console tests: pages signed in with a key, file drops, screenshots compared with the
 * committed baselines (the latest kept under test-output/console for people to look at), and axe-core checks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { REPO_ROOT } from '../../../src/config';

export const WIDTHS = { desktop: 1280, phone: 390 } as const;
export type Width = keyof typeof WIDTHS;

const BASELINES = path.join(__dirname, 'baselines');
export const OUTPUT_DIR = path.join(REPO_ROOT, 'test-output', 'console');
/** Share of pixels that may differ from the baseline (anti-aliasing, a scrollbar). */
const MAX_DIFF_RATIO = 0.02;

/**
 * Who looks, for the screenshots: a person whose browser is in UTC and US English, or one far east of UTC (another
 * date than UTC's for most of the day) with another language. Each is a context of the one browser a file starts;
 * each has its own baselines, the same on any machine the tests run on.
 */
export const MACHINES = {
  here: { timezoneId: 'UTC', locale: 'en-US' },
  elsewhere: { timezoneId: 'Pacific/Kiritimati', locale: 'de-DE' },
} satisfies Record<string, { timezoneId: string; locale: string }>;
export type Machine = keyof typeof MACHINES;

/** The one headless Chromium of a test file; its pages open in contexts of their own (openConsole). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--font-render-hinting=none',
    ],
  });
}

/** Each page at each width in each machine's browser: the screenshots of a baseline test. */
export function screenshotsOf<T>(pages: ReadonlyArray<readonly [string, T]>): Array<{ name: string; pathOf: T; width: Width; machine: Machine }> {
  return (Object.keys(MACHINES) as Machine[]).flatMap((machine) =>
    (Object.keys(WIDTHS) as Width[]).flatMap((width) => pages.map(([name, pathOf]) => ({ name, pathOf, width, machine }))),
  );
}

export interface ConsolePage {
  page: Page;
  /** Errors the page printed or threw, less the failed requests the test caused on purpose. */
  errors: string[];
}

/**
 * Signs in with `apiKey` (unless null) and waits for the first page's heading: the models, or an operator key's
 * accounts. With `clock`, the page's clock stands still at that instant (what it computes from "now", such as the
 * last 30 days of a chart, is the same on any day); `machine` is whose zone and language the page has (`here`: UTC
 * and US English, whatever the zone and language of the machine the tests run on).
 */
export async function openConsole(
  browser: Browser,
  baseUrl: string,
  apiKey: string | null,
  width: Width = 'desktop',
  landing = 'Models',
  options: { clock?: Date; machine?: Machine } = {},
): Promise<ConsolePage> {
  const context = await browser.newContext({
    viewport: { width: WIDTHS[width], height: 900 },
    reducedMotion: 'reduce',
    // bypassCSP lets the accessibility check inject axe-core; the page's own policy is checked in the serving test.
    bypassCSP: true,
    ...MACHINES[options.machine ?? 'here'],
  });
  const page = await context.newPage();
  if (options.clock) await page.clock.setFixedTime(options.clock);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // The browser logs every 4xx answer; the tests provoke some (refusals, a revoked key) and check what is shown.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) errors.push(message.text());
  });
  await page.goto(`${baseUrl}/console/`);
  if (apiKey !== null) {
    await page.getByLabel('API key').fill(apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: landing, exact: true }).waitFor();
  }
  return { page, errors };
}

/** Drops `bytes` as a file on the drop zone, as a person dragging it from their desktop would. */
export async function dropFile(page: Page, dropzone: Locator, name: string, type: string, bytes: Buffer): Promise<void> {
  await dropFiles(page, dropzone, [{ name, type, bytes }]);
}

/** Drops several files at once on `dropzone`, as a person dragging a selection would. */
export async function dropFiles(page: Page, dropzone: Locator, files: { name: string; type: string; bytes: Buffer }[]): Promise<void> {
  const transfer = await page.evaluateHandle(
    (sent) => {
      // Runs in the page; the project compiles without the DOM library.
      const web = globalThis as unknown as {
        atob(text: string): string;
        DataTransfer: new () => { items: { add(file: unknown): void } };
        File: new (parts: unknown[], name: string, options: { type: string }) => unknown;
      };
      const dt = new web.DataTransfer();
      for (const { name, type, base64 } of sent) dt.items.add(new web.File([Uint8Array.from(web.atob(base64), (c) => c.charCodeAt(0))], name, { type }));
      return dt;
    },
    files.map(({ name, type, bytes }) => ({ name, type, base64: bytes.toString('base64') })),
  );
  await dropzone.dispatchEvent('dragover', { dataTransfer: transfer });
  await dropzone.dispatchEvent('drop', { dataTransfer: transfer });
}

/**
 * Text that differs from run to run with nothing the test can fix (what the server reckons from its own clock, such
 * as when a spend limit resets): shown as `text` instead, so its width cannot move what is beside it, and masked.
 */
export interface StandIn {
  locator: Locator;
  text: string;
}

/**
 * Screenshots the page with what changes from run to run masked (ids, generated media, stand-ins), keeps it under
 * test-output/console, and returns the share of pixels that differ from the committed baseline. A missing baseline
 * is written when UPDATE_BASELINES=1, and reported as a difference of 1 otherwise. The shots and baselines of the
 * person far east of UTC are named `<name>.elsewhere.png`.
 */
export async function compareWithBaseline(page: Page, name: string, mask: Locator[], options: { standIns?: StandIn[]; machine?: Machine } = {}): Promise<number> {
  const { standIns = [], machine = 'here' } = options;
  for (const { locator, text } of standIns) {
    // The text nodes change, not the elements, so the page's own script still finds what it rendered.
    await locator.evaluateAll((elements, replacement) => {
      const textNodes = (node: unknown): { nodeValue: string | null }[] => {
        const n = node as { nodeType: number; childNodes: ArrayLike<unknown>; nodeValue: string | null };
        return n.nodeType === 3 ? [n] : Array.from(n.childNodes).flatMap(textNodes);
      };
      for (const element of elements) textNodes(element).forEach((text, i) => (text.nodeValue = i === 0 ? replacement : ''));
    }, text);
  }
  fs.mkdirSync(OUTPUT_DIR, { recursive: true });
  const shot = await page.screenshot({ fullPage: true, mask: [...mask, ...standIns.map((s) => s.locator)], maskColor: '#ff00ff', animations: 'disabled', caret: 'hide' });
  const output = machine === 'here' ? name : `${name}.${machine}`;
  fs.writeFileSync(path.join(OUTPUT_DIR, `${output}.png`), shot);
  const baselineFile = path.join(BASELINES, `${output}.png`);
  if (process.env.UPDATE_BASELINES === '1') {
    fs.mkdirSync(BASELINES, { recursive: true });
    fs.writeFileSync(baselineFile, shot);
    return 0;
  }
  if (!fs.existsSync(baselineFile)) return 1;
  const actual = PNG.sync.read(shot);
  const expected = PNG.sync.read(fs.readFileSync(baselineFile));
  if (actual.width !== expected.width) return 1;
  // Full-page shots may differ in height when a list is longer; the common part is compared, the rest counts as different.
  const width = actual.width;
  const height = Math.min(actual.height, expected.height);
  const crop = (png: PNG) => png.data.subarray(0, width * height * 4);
  const diff = new PNG({ width, height });
  const differing = pixelmatch(crop(actual), crop(expected), diff.data, width, height, { threshold: 0.1 });
  fs.writeFileSync(path.join(OUTPUT_DIR, `${output}.diff.png`), PNG.sync.write(diff));
  const extra = Math.abs(actual.height - expected.height) * width;
  return (differing + extra) / (width * Math.max(actual.height, expected.height));
}

export { MAX_DIFF_RATIO };

/** axe-core's serious and critical findings on the page as it is. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const violations = await page.evaluate(async () => {
    const web = globalThis as unknown as {
      document: unknown;
      axe: { run(context: unknown, options: object): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> };
    };
    const result = await web.axe.run(web.document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`);
}
