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
