import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's chromium (`.ci/run` installs it); playwright-core brings no browser of its own. */
export const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (see .ci/run)`);
  // Chromium's sandbox refuses to run as root (CI containers); elsewhere it stays on.
  const args = process.getuid?.() === 0 ? ['--no-sandbox'] : [];
  return chromium.launch({ executablePath: CHROMIUM, args });
}

/**
 * A page that records every console error and uncaught exception, so a test can assert the
 * console ran clean (a CSP violation or a failed request shows up there too). Each is recorded as
 * `<page url>: <message>`, and a message about a resource ends with ` [<resource url>]`: a request
 * answered after the page moved on is logged under the new page.
 */
export async function trackedPage(context: BrowserContext, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const from = msg.location().url;
    errors.push(`${page.url()}: ${msg.text()}${from && from !== page.url() ? ` [${from}]` : ''}`);
  });
  page.on('pageerror', (err) => errors.push(`${page.url()}: uncaught ${err.message}`));
  return page;
}

/** What a console test shares between its pages: the browser, the contexts to close, the errors seen. */
export interface ConsoleSession {
  browser: Browser;
  contexts: BrowserContext[];
  errors: string[];
  /** The console's address, `<api>/ui`. */
  uiUrl: string;
}

/** A fresh browser context logged in to the console with `token`, once the header names `<role>-token · <role>`. */
export async function loggedIn(
  session: ConsoleSession,
  role: string,
  token: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await session.browser.newContext({ viewport: { width: 1280, height: 800 } });
  session.contexts.push(context);
  const page = await trackedPage(context, session.errors);
  await page.goto(`${session.uiUrl}/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page
    .getByTestId('whoami')
    .filter({ hasText: `${role}-token · ${role}` })
    .waitFor();
  return { context, page };
}
