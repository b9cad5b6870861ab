/**
 * The browser scenarios against nginx, as vitest tests for one browser: one stack (nginx, the
 * backend, the page) and one browser launch for the file, two tabs (the page on `site` and on
 * `rotating`), and one test per client and scenario. A browser or an nginx that cannot start
 * fails every test with the reason; nothing is skipped.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { BrowserName } from '../runtimes/hosts/launch-browser.ts';
import { launchNginxBrowser, type NginxBrowser, type NginxPage } from './browser.ts';
import type { ClientName } from './protocol.ts';
import type { ScenarioContext } from './scenario.ts';
import { SCENARIOS } from './scenarios/index.ts';
import { type BrowserStack, startBrowserStack } from './stack.ts';

const CLIENTS: readonly ClientName[] = ['fetch', 'ky', 'axios-xhr', 'axios-fetch'];
const START_TIMEOUT_MS = 90_000;

export const describeNginxBrowser = (name: BrowserName): void => {
  describe(`${name} against nginx (TLS, HTTP/2)`, () => {
    let stack: BrowserStack | undefined;
    let browser: NginxBrowser | undefined;
    const pages = new Map<'site' | 'rotating', NginxPage>();
    let notStarted: Error | undefined;

    beforeAll(async () => {
      try {
        stack = await startBrowserStack();
        browser = await launchNginxBrowser(name, stack.nginx.ca);
        for (const server of ['site', 'rotating'] as const)
          pages.set(server, await browser.open(`${stack.origin(server)}/`));
      } catch (error) {
        notStarted = error instanceof Error ? error : new Error(String(error));
        console.error(`\n${name} against nginx could not start (every test fails): ${notStarted.message}\n`);
      }
    }, START_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      await stack?.stop();
    }, START_TIMEOUT_MS);

    for (const client of CLIENTS) {
      describe(client, () => {
        for (const scenario of SCENARIOS.filter((s) => !s.clients || s.clients.includes(client))) {
          it(scenario.title, { timeout: scenario.timeoutMs }, async () => {
            if (!stack || !browser)
              throw new Error(`${name} against nginx did not start: ${notStarted?.message}`);
            const started = stack;
            const found: string[] = [];
            const ctx: ScenarioContext = {
              browser: name,
              client,
              stack: started,
              page: (server) => pages.get(server)!,
              prefix: (area) => `/api/${area}/${name}/${client}`,
              report: (line) => found.push(line),
            };
            try {
              await scenario.run(ctx);
            } finally {
              for (const line of found) console.info(`${name} ${client}: ${line}`);
            }
          });
        }
      });
    }
  });
};
