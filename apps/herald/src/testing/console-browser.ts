import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Browser, Page, chromium } from 'playwright-core';

/** Debian's chromium; `.ci/run` installs it. */
export const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..', '..', '..');
/** Skipped without chromium, unless CI requires every test to run (HERALD_TEST_REQUIRE_INFRA=1), where a missing browser fails. */
export const describeInBrowser = existsSync(CHROMIUM) || process.env.HERALD_TEST_REQUIRE_INFRA === '1' ? describe : describe.skip;
/** How long a page waits for what it shows. */
export const UI = { timeout: 30_000 };

/** Where a spec keeps its screenshots, kept as test artifacts (git-ignored). */
export function artifactsFolder(name: string): string {
  return join(ROOT, 'artifacts', name);
}

/**
 * Before a console browser spec: chromium is there, the console is built (what npm ci,
 * npm start and npm test do anyway; a no-op when the build is current), and the
 * screenshots folder exists.
 */
export function prepareConsoleBrowserTest(screenshots: string): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (HERALD_TEST_REQUIRE_INFRA=1 allows no skipped test)`);
  execFileSync(process.execPath, [join(ROOT, 'tools', 'console', 'build.js')], { cwd: ROOT, stdio: 'inherit' });
  mkdirSync(screenshots, { recursive: true });
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}

/** A page whose console errors and uncaught page errors go to `problems`, for a spec to assert on. */
export async function watchedPage(browser: Browser, problems: string[], viewport = { width: 1440, height: 1000 }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return page;
}
