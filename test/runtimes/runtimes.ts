/**
 * The runtimes of the matrix, how each is started, and which clients it runs: the fetch wrapper
 * and ky everywhere; axios (xhr and fetch adapters) in the browsers, where it is the browser's
 * own client (in Node it has its http adapter, which the conformance suite covers).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowserHost } from './hosts/browser.ts';
import { ROOT } from './hosts/bundle.ts';
import type { RuntimeHost } from './hosts/host.ts';
import { startProcessHost } from './hosts/process.ts';
import { startWorkerdHost } from './hosts/workerd.ts';
import type { ClientName, RuntimeName } from './protocol.ts';

export interface RuntimeSpec {
  readonly name: RuntimeName;
  /** What it is and where it comes from, for the matrix. */
  readonly label: string;
  readonly clients: readonly ClientName[];
  /** What the started runtime must report as its version (a wrong Node is not Node 22). */
  readonly version?: RegExp;
  start(): Promise<RuntimeHost>;
}

const STDIO_ENTRY = 'test/runtimes/in-runtime/entries/stdio.ts';
const SOURCE_CONDITION = '--conditions=@jitterbug/source';

/** A binary from the workspace's packages (or the toolchain's); missing is an error naming it. */
const binary = (relative: string, installedBy: string): string => {
  const path = join(ROOT, relative);
  if (!existsSync(path)) throw new Error(`${relative} is missing: ${installedBy}`);
  return path;
};

const node = (name: RuntimeName, major: number, path: () => string, label: string): RuntimeSpec => ({
  name,
  label,
  version: new RegExp(`^Node\\.js/${major}$`),
  clients: ['fetch', 'ky'],
  start: async () =>
    startProcessHost({
      command: path(),
      args: ['--disable-warning=ExperimentalWarning', SOURCE_CONDITION, STDIO_ENTRY],
      cwd: ROOT,
    }),
});

export const RUNTIMES: Readonly<Record<RuntimeName, RuntimeSpec>> = {
  chromium: {
    name: 'chromium',
    label: "Chromium (Debian's chromium-headless-shell, puppeteer-core)",
    clients: ['fetch', 'ky', 'axios-xhr', 'axios-fetch'],
    start: () => startBrowserHost('chromium'),
  },
  firefox: {
    name: 'firefox',
    label: "Firefox ESR (Debian's firefox-esr, puppeteer-core over WebDriver BiDi)",
    clients: ['fetch', 'ky', 'axios-xhr', 'axios-fetch'],
    start: () => startBrowserHost('firefox'),
  },
  bun: {
    name: 'bun',
    label: 'Bun (npm @oven/bun-linux-x64), package sources unbundled',
    clients: ['fetch', 'ky'],
    start: async () =>
      startProcessHost({
        command: binary(
          'node_modules/@oven/bun-linux-x64/bin/bun',
          'a devDependency of the workspace: make install',
        ),
        args: [SOURCE_CONDITION, STDIO_ENTRY],
        cwd: ROOT,
        env: { NO_COLOR: '1' },
      }),
  },
  deno: {
    name: 'deno',
    label: 'Deno (npm @deno/linux-x64-glibc), package sources unbundled',
    clients: ['fetch', 'ky'],
    start: async () =>
      startProcessHost({
        command: binary(
          'node_modules/@deno/linux-x64-glibc/deno',
          'a devDependency of the workspace: make install',
        ),
        args: [
          'run',
          '--no-lock',
          '--no-prompt',
          '--allow-net=127.0.0.1,localhost',
          '--allow-read',
          '--allow-env',
          SOURCE_CONDITION,
          STDIO_ENTRY,
        ],
        cwd: ROOT,
        env: {
          DENO_DIR: join(ROOT, 'node_modules/.cache/deno'),
          DENO_NO_UPDATE_CHECK: '1',
          NO_COLOR: '1',
        },
      }),
  },
  workerd: {
    name: 'workerd',
    label: 'workerd (npm miniflare), bundled module worker',
    clients: ['fetch', 'ky'],
    start: startWorkerdHost,
  },
  node22: node(
    'node22',
    22,
    () => binary('.tools/node_modules/node22/bin/node', 'installed by scripts/bootstrap.sh: make setup'),
    'Node 22 (.tools/node_modules/node22), package sources through type stripping',
  ),
  node24: node('node24', 24, () => process.execPath, 'Node 24 (the Node running vitest), as a child process'),
};
