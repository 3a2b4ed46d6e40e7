import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install -y chromium`), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

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
