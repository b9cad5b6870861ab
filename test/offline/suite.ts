/**
 * A browser that is offline, for real: the test takes the page offline (Chromium through the
 * DevTools protocol, Firefox through WebDriver BiDi's `emulation.setNetworkConditions`), which sets
 * `navigator.onLine` to `false` and fails every request at once, then back online, which fires the
 * `online` event. Each client of the page calls a scripted `node:http` server (CORS) meanwhile: its
 * log says what reached it. A browser that cannot start fails every test with the reason.
 */
import { fileURLToPath } from 'node:url';
import type { CDPSession, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_CONDITIONS, bundle } from '../runtimes/hosts/bundle.ts';
import { type BrowserName, type LaunchedBrowser, launchBrowser } from '../runtimes/hosts/launch-browser.ts';
import { modulePage, type PageServer, startPageServer } from '../runtimes/hosts/page-server.ts';
import { type HttpScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import type { OfflineCall, OfflineClient, OfflineJob, OfflineTest } from './protocol.ts';

const CLIENTS: readonly OfflineClient[] = ['fetch', 'ky', 'axios-xhr', 'axios-fetch'];
const START_TIMEOUT_MS = 90_000;
const TEST_TIMEOUT_MS = 30_000;

type InPage = { offlineTest: OfflineTest };

/** Polls `check` until it holds (a few seconds at most): what the page does takes its own time. */
const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`still not so after 5 s: ${what}`);
};

export const describeOffline = (name: BrowserName): void => {
  describe(`${name} offline`, () => {
    let server: HttpScriptedServer;
    let pages: PageServer | undefined;
    let browser: LaunchedBrowser | undefined;
    let page: Page | undefined;
    let cdp: CDPSession | undefined;
    let notStarted: Error | undefined;

    beforeAll(async () => {
      server = await startScriptedServer({ cors: true });
      try {
        const script = await bundle({
          entry: fileURLToPath(new URL('page.ts', import.meta.url)),
          conditions: BROWSER_CONDITIONS,
        });
        pages = await startPageServer({
          '/': modulePage(`jitterbug offline: ${name}`),
          '/runtime.js': { type: 'text/javascript; charset=utf-8', body: script },
        });
        browser = await launchBrowser(name);
        page = await browser.browser.newPage();
        if (name === 'chromium') {
          cdp = await page.createCDPSession();
          await cdp.send('Network.enable');
        }
        await page.goto(`${pages.url}/`, { waitUntil: 'load' });
        await until('the page loaded its clients', async () =>
          page!.evaluate(() => typeof (globalThis as unknown as Partial<InPage>).offlineTest === 'object'),
        );
      } catch (error) {
        notStarted = error instanceof Error ? error : new Error(String(error));
        console.error(`\n${name} could not start (every offline test fails): ${notStarted.message}\n`);
      }
    }, START_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      await pages?.close();
      await server.close();
    }, START_TIMEOUT_MS);

    /**
     * Chromium fires `online` as soon as the network state says so: the traffic rule must be lifted
     * first, or the retry the event starts meets a network still blocked (puppeteer's
     * `setOfflineMode` sends the two commands the other way round). Firefox's is one command.
     */
    const emulate = async (p: Page, offline: boolean): Promise<void> => {
      if (!cdp) return p.setOfflineMode(offline);
      const conditions = { offline, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };
      const state = () => cdp!.send('Network.overrideNetworkState', conditions);
      const rule = () =>
        cdp!.send('Network.emulateNetworkConditionsByRule', {
          matchedNetworkConditions: [{ urlPattern: '', ...conditions }],
        });
      await rule();
      await state();
    };

    /** The page, online or offline as asked, once `navigator.onLine` says so. */
    const network = async (online: boolean): Promise<Page> => {
      if (!page) throw new Error(`${name} did not start: ${notStarted?.message}`);
      await emulate(page, !online);
      await until(
        `navigator.onLine is ${online}`,
        async () =>
          (await page!.evaluate(() => (globalThis as unknown as InPage).offlineTest.online())) === online,
      );
      return page;
    };
    const start = (p: Page, job: OfflineJob): Promise<number> =>
      p.evaluate((j) => (globalThis as unknown as InPage).offlineTest.start(j), job);
    const call = (p: Page, id: number): Promise<OfflineCall> =>
      p.evaluate((i) => (globalThis as unknown as InPage).offlineTest.call(i), id);
    const ended = (p: Page, id: number): Promise<OfflineCall> =>
      p.evaluate((i) => (globalThis as unknown as InPage).offlineTest.ended(i), id);
    /** Resolves once the call is waiting to be back online (its first retry was decided). */
    const waitingOnline = async (p: Page, id: number): Promise<OfflineCall> => {
      await until(
        'the retry waits for the browser to be online',
        async () => (await call(p, id)).retries.length > 0,
      );
      return call(p, id);
    };

    for (const client of CLIENTS) {
      describe(client, () => {
        const path = (what: string) => `/offline/${name}/${client}/${what}`;

        it('a GET while offline waits for the online event, then goes; the attempt made offline is not counted', {
          timeout: TEST_TIMEOUT_MS,
        }, async () => {
          server.route(path('report'), [{ status: 503 }, { status: 200, body: 'report' }]);
          const p = await network(false);
          const id = await start(p, {
            client,
            method: 'GET',
            url: `${server.url}${path('report')}`,
            options: { maxAttempts: 2 },
          });
          const waiting = await waitingOnline(p, id);
          expect(waiting.retries).toEqual([
            expect.objectContaining({
              attempt: 1,
              reason: 'offline',
              delaySource: 'offline',
            }),
          ]);
          // At most retryAfter.maxMs; ky's own timeout (10 s) is the run's deadline, which bounds it too.
          expect(waiting.retries[0]!.delayMs).toBeGreaterThan(client === 'ky' ? 9_000 : 59_000);
          expect(waiting.retries[0]!.delayMs).toBeLessThanOrEqual(client === 'ky' ? 10_000 : 60_000);
          expect(waiting.ended).toBeNull();
          // Nothing reached the server while the browser was offline.
          expect(server.seen(path('report'))).toHaveLength(0);
          await network(true);
          const done = await ended(p, id);
          expect(done.ended).toMatchObject({ kind: 'response', status: 200, body: 'report' });
          // The 503 is retried although maxAttempts is 2: the failure offline did not count.
          expect(done.ended?.info).toMatchObject({
            attempts: 3,
            retries: ['offline', 'status'],
            outcome: 'success',
          });
          expect(server.seen(path('report'))).toHaveLength(2);
        });

        it('the caller’s abort ends the wait at once', { timeout: TEST_TIMEOUT_MS }, async () => {
          server.route(path('aborted'), [{ status: 200 }]);
          const p = await network(false);
          const id = await start(p, { client, method: 'GET', url: `${server.url}${path('aborted')}` });
          await waitingOnline(p, id);
          await p.evaluate((i) => (globalThis as unknown as InPage).offlineTest.abort(i), id);
          const done = await ended(p, id);
          await network(true);
          expect(done.ended).toMatchObject({ kind: 'error', info: { attempts: 1, reason: 'aborted' } });
          expect(done.aborted).toBe(true);
          expect(server.seen(path('aborted'))).toHaveLength(0);
        });

        it('the deadline bounds the wait: a browser still offline at it gets the failure', {
          timeout: TEST_TIMEOUT_MS,
        }, async () => {
          server.route(path('deadline'), [{ status: 200 }]);
          const p = await network(false);
          const id = await start(p, {
            client,
            method: 'GET',
            url: `${server.url}${path('deadline')}`,
            options: { deadlineMs: 1_000 },
          });
          const waiting = await waitingOnline(p, id);
          expect(waiting.retries[0]).toMatchObject({ reason: 'offline', delaySource: 'offline' });
          expect(waiting.retries[0]!.delayMs).toBeLessThanOrEqual(1_000);
          const done = await ended(p, id);
          await network(true);
          expect(done.ended).toMatchObject({
            kind: 'error',
            info: { attempts: 2, retries: ['offline'], reason: 'deadline', outcome: 'failure' },
          });
          expect(server.seen(path('deadline'))).toHaveLength(0);
        });

        it('a POST without a key is not retried: the browser may have sent it before it went offline', {
          timeout: TEST_TIMEOUT_MS,
        }, async () => {
          server.route(path('order'), [{ status: 201 }]);
          const p = await network(false);
          const id = await start(p, {
            client,
            method: 'POST',
            url: `${server.url}${path('order')}`,
            body: 'sku=A-1',
          });
          const done = await ended(p, id);
          await network(true);
          expect(done.retries).toEqual([]);
          expect(done.ended).toMatchObject({
            kind: 'error',
            info: { attempts: 1, reason: 'method-not-idempotent' },
          });
          expect(server.seen(path('order'))).toHaveLength(0);
        });
      });
    }
  });
};
