import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { installDebianPackages } from './debian-packages.js';

/** Debian's chromium package (`apt-get install -y chromium`), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Finds Chromium the way the harness finds ZooKeeper: present, or installed from Debian's
 * package when this process is root on Debian/Ubuntu (once, in the global setup, before any
 * test file runs). Returns why it is missing, or undefined when it is there.
 */
export function provideChromium(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const why = installDebianPackages(['chromium']);
  if (existsSync(CHROMIUM)) return undefined;
  return `no browser at ${CHROMIUM}: ${why ?? "install Debian's chromium package (sudo apt-get install -y chromium)"}`;
}

/**
 * Whether the browser tests skip here: only where Chromium is missing and could not be
 * installed, and never in CI (CI=true), where a missing browser fails them.
 */
export const browserMissing = (): boolean => !existsSync(CHROMIUM) && !process.env.CI;

/** Headless Chromium; `--no-sandbox` because CI runs as root. Fails naming the package when missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no browser at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}

/**
 * Collects a page's uncaught errors (a test expects none). Console messages are not collected:
 * Chromium logs every refused request (a 401 the test provokes) as a console error.
 */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return errors;
}

/** What a page's requests met, as it happened: requests that failed, and answers of 400 or more. */
export function requestTrouble(page: Page): string[] {
  const seen: string[] = [];
  page.on('requestfailed', (request) =>
    seen.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText ?? 'failed'}`),
  );
  page.on('response', (response) => {
    if (response.status() >= 400)
      seen.push(`${response.request().method()} ${response.url()}: ${response.status()}`);
  });
  return seen;
}

/**
 * Waits for `selector` on `page`. When it does not come, the error says what the page shows in its
 * place and what its requests met (see requestTrouble), so a failure far from here can be read.
 */
export async function waitShown(page: Page, selector: string, trouble: readonly string[]): Promise<void> {
  try {
    await page.locator(selector).waitFor();
  } catch (err) {
    const main = await page
      .locator('#main')
      .innerText({ timeout: 1000 })
      .catch(() => '(unreadable)');
    const met = trouble.slice(-10).join('; ') || 'nothing';
    throw new Error(
      `${selector} not shown at ${page.url()}; the page shows ${JSON.stringify(main.slice(0, 500))}; its requests met: ${met}`,
      { cause: err },
    );
  }
}
