/**
 * The servers of the browser scenarios: the Node backend (the scripted server, which records what
 * reaches it), a folder with the page (its HTML and the bundled clients), and nginx serving both
 * (see setup.ts). One stack per browser: each scenario's paths are its own, so nothing is reset
 * between them.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BROWSER_CONDITIONS, bundle } from '../runtimes/hosts/bundle.ts';
import { modulePage } from '../runtimes/hosts/page-server.ts';
import { type RunningNginx, startNginx } from '../support/nginx/nginx.ts';
import { type HttpScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import { browserSetup } from './setup.ts';

export type ServerName = 'site' | 'api' | 'rotating';

export interface BrowserStack {
  readonly nginx: RunningNginx;
  readonly backend: HttpScriptedServer;
  /** The origin of each server, as the page reaches it: `https://127.0.0.1:PORT` (HTTP/2). */
  origin(server: ServerName): string;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('page/entry.ts', import.meta.url));

export const startBrowserStack = async (): Promise<BrowserStack> => {
  const pages = await mkdtemp(join(tmpdir(), 'jitterbug-nginx-pages-'));
  let backend: HttpScriptedServer | undefined;
  try {
    // The page loads its script from its own origin: `/runtime.js`, as modulePage writes it.
    await writeFile(
      join(pages, 'runtime.js'),
      await bundle({ entry: ENTRY, conditions: BROWSER_CONDITIONS }),
    );
    await writeFile(join(pages, 'index.html'), modulePage('jitterbug behind nginx').body);
    backend = await startScriptedServer();
    const nginx = await startNginx(browserSetup(pages), { backend: backend.url });
    const started = backend;
    return {
      nginx,
      backend: started,
      origin: (server) => nginx.url(server, 'h2'),
      async stop() {
        await nginx.stop();
        await started.close();
        await rm(pages, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await backend?.close();
    await rm(pages, { recursive: true, force: true });
    throw error;
  }
};
