import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install -y chromium`), driven by playwright-core. */
export const CHROMIUM = '/usr/bin/chromium';

function isDebianLike(): boolean {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Finds Chromium the way the harness finds ZooKeeper: present, or installed from Debian's
 * package when this process is root on Debian/Ubuntu (once, in the global setup, before any
 * test file runs). Returns why it is missing, or undefined when it is there.
 */
export function provideChromium(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  if (process.getuid?.() === 0 && isDebianLike()) {
    const opts = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
    try {
      execFileSync('apt-get', ['update'], opts);
      execFileSync('apt-get', ['install', '-y', 'chromium'], opts);
    } catch (err) {
      return `apt-get install -y chromium failed: ${(err as Error).message}`;
    }
    if (existsSync(CHROMIUM)) return undefined;
  }
  return `no browser at ${CHROMIUM}: install Debian's chromium package (sudo apt-get install -y chromium)`;
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
