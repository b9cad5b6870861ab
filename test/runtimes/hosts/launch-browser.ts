/**
 * Launches Debian's Chromium (`chromium-headless-shell`) or Firefox ESR with puppeteer-core, once
 * per suite. A browser that is not installed is an error that says how to install it: never a
 * reason to skip.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';

export type BrowserName = 'chromium' | 'firefox';

const CANDIDATES: Readonly<Record<BrowserName, readonly string[]>> = {
  chromium: ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'],
  firefox: ['/usr/bin/firefox-esr', '/usr/bin/firefox'],
};
const ENV: Readonly<Record<BrowserName, string>> = {
  chromium: 'JITTERBUG_CHROMIUM',
  firefox: 'JITTERBUG_FIREFOX',
};

export const INSTALL_HINT =
  'run `sh scripts/install-debian-packages.sh` as root (it runs: apt-get install -y --no-install-recommends chromium-headless-shell firefox-esr)';

/** The browser's executable, or an error saying it is missing and how to install it. */
export const browserExecutable = (name: BrowserName): string => {
  const own = process.env[ENV[name]];
  const candidates = own ? [own] : CANDIDATES[name];
  const found = candidates.find((path) => existsSync(path));
  if (found) return found;
  throw new Error(`${name} is not installed: none of ${candidates.join(', ')} exists; ${INSTALL_HINT}`);
};

export interface LaunchedBrowser {
  readonly browser: Browser;
  /** As the browser reports it, e.g. `HeadlessChrome/156.0.8078.79`, `firefox/153.7.0`. */
  readonly version: string;
  close(): Promise<void>;
}

export const launchBrowser = async (name: BrowserName): Promise<LaunchedBrowser> => {
  const executablePath = browserExecutable(name);
  if (name === 'firefox') {
    // WebDriver BiDi; puppeteer makes (and removes) a fresh profile with prefs that keep it quiet.
    const browser = await puppeteer.launch({ browser: 'firefox', executablePath, headless: true });
    return { browser, version: await browser.version(), close: () => browser.close() };
  }
  const userDataDir = await mkdtemp(join(tmpdir(), 'jitterbug-chromium-'));
  try {
    const browser = await puppeteer.launch({
      browser: 'chrome',
      executablePath,
      headless: executablePath.endsWith('headless-shell') ? 'shell' : true,
      userDataDir,
      args: [
        // Chromium's sandbox refuses to run as root.
        ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
        // The network here is closed: Chromium's own background connections would only fail.
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    return {
      browser,
      version: await browser.version(),
      async close() {
        await browser.close();
        await rm(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(userDataDir, { recursive: true, force: true });
    throw error;
  }
};
