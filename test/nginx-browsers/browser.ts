/**
 * A browser on the stack's page, trusting nginx's self-signed certificate and nothing else:
 * Chromium by the certificate's key (`--ignore-certificate-errors-spki-list`, which Chromium honours
 * with a `--user-data-dir` of the test's own, as puppeteer gives it); Firefox through WebDriver
 * BiDi's `acceptInsecureCerts` (Firefox has no flag that names one certificate, and its profile's
 * certificate store would need NSS's certutil, which Debian's firefox-esr does not bring).
 */
import { createHash, X509Certificate } from 'node:crypto';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { type BrowserName, browserExecutable } from '../runtimes/hosts/launch-browser.ts';
import type { PageJob, PageReply } from './protocol.ts';

/** A page of the stack open in the browser, with the clients loaded. */
export interface NginxPage {
  run(job: PageJob): Promise<PageReply>;
}

export interface NginxBrowser {
  /** As the browser reports it, e.g. `HeadlessChrome/156.0.8078.79`. */
  readonly version: string;
  /** Opens a page (in a tab of its own) and waits for its clients. */
  open(url: string): Promise<NginxPage>;
  close(): Promise<void>;
}

/** base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo: how Chromium names a key to trust. */
const spkiHash = (pem: string): string =>
  createHash('sha256')
    .update(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64');

const launch = (name: BrowserName, ca: string): Promise<Browser> => {
  const executablePath = browserExecutable(name);
  if (name === 'firefox')
    return puppeteer.launch({
      browser: 'firefox',
      executablePath,
      headless: true,
      acceptInsecureCerts: true,
    });
  return puppeteer.launch({
    browser: 'chrome',
    executablePath,
    headless: executablePath.endsWith('headless-shell') ? 'shell' : true,
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      `--ignore-certificate-errors-spki-list=${spkiHash(ca)}`,
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
};

const PAGE_LOG_KEEP = 20;

const openPage = async (browser: Browser, name: BrowserName, url: string): Promise<NginxPage> => {
  const page: Page = await browser.newPage();
  // What the page printed or threw, to tell why a job failed.
  const pageLog: string[] = [];
  const note = (line: string): void => {
    pageLog.push(line);
    if (pageLog.length > PAGE_LOG_KEEP) pageLog.shift();
  };
  page.on('console', (message) => note(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) =>
    note(`page error: ${error instanceof Error ? error.message : String(error)}`),
  );
  await page.goto(url, { waitUntil: 'load' });
  const ready = await page.evaluate(() => typeof (globalThis as { jitterbugNginx?: unknown }).jitterbugNginx);
  if (ready !== 'object') throw new Error(`${url} did not load its clients:\n${pageLog.join('\n')}`);
  return {
    async run(job) {
      try {
        // Firefox runs a background tab's timers a second late at the soonest: a backoff of 50 ms
        // would wait 1 s. The tab that runs the job is brought to the front first.
        await page.bringToFront();
        return await page.evaluate(
          (j) =>
            (
              globalThis as unknown as { jitterbugNginx: { run(j: PageJob): Promise<PageReply> } }
            ).jitterbugNginx.run(j),
          job,
        );
      } catch (error) {
        throw new Error(`${name}: page.evaluate failed: ${String(error)}\n${pageLog.join('\n')}`);
      }
    },
  };
};

/** Launches `name` trusting the certificate `ca` (PEM). */
export const launchNginxBrowser = async (name: BrowserName, ca: string): Promise<NginxBrowser> => {
  const browser = await launch(name, ca);
  try {
    return {
      version: await browser.version(),
      open: (url) => openPage(browser, name, url),
      close: () => browser.close(),
    };
  } catch (error) {
    await browser.close();
    throw error;
  }
};
