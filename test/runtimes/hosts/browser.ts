/**
 * A browser as a runtime: one launch per suite, one page (served from its own origin) with the
 * bundled clients; each job is one `page.evaluate` of `jitterbugRuntime.run(job)`.
 */
import type { Job, JobReply } from '../protocol.ts';
import { BROWSER_BUNDLE, bundle } from './bundle.ts';
import type { RuntimeHost } from './host.ts';
import { type BrowserName, launchBrowser } from './launch-browser.ts';
import { modulePage, startPageServer } from './page-server.ts';

const PAGE_LOG_KEEP = 20;

export const startBrowserHost = async (name: BrowserName): Promise<RuntimeHost> => {
  const script = await bundle(BROWSER_BUNDLE);
  const pages = await startPageServer({
    '/': modulePage(`jitterbug runtime: ${name}`),
    '/runtime.js': { type: 'text/javascript; charset=utf-8', body: script },
  });
  let launched: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  try {
    launched = await launchBrowser(name);
    const page = await launched.browser.newPage();
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
    await page.goto(`${pages.url}/`, { waitUntil: 'load' });
    const ready = await page.evaluate(
      () => typeof (globalThis as { jitterbugRuntime?: unknown }).jitterbugRuntime,
    );
    if (ready !== 'object') throw new Error(`the page did not load its runtime:\n${pageLog.join('\n')}`);
    const browser = launched;
    return {
      version: browser.version,
      async run(job: Job): Promise<JobReply> {
        try {
          return await page.evaluate(
            (j) =>
              (
                globalThis as unknown as { jitterbugRuntime: { run(j: Job): Promise<JobReply> } }
              ).jitterbugRuntime.run(j),
            job,
          );
        } catch (error) {
          throw new Error(`${name}: page.evaluate failed: ${String(error)}\n${pageLog.join('\n')}`);
        }
      },
      async close() {
        await browser.close();
        await pages.close();
      },
    };
  } catch (error) {
    await launched?.close();
    await pages.close();
    throw error;
  }
};
