/**
 * workerd through miniflare: the bundled module worker (`in-runtime/entries/worker.ts`) gets each
 * job as a request sent with miniflare's own `dispatchFetch`, and reaches the scripted server on
 * 127.0.0.1 directly with the worker's fetch.
 */
import { createRequire } from 'node:module';
import { Miniflare } from 'miniflare';
import type { Job, JobReply } from '../protocol.ts';
import { bundle, WORKERD_BUNDLE } from './bundle.ts';
import type { RuntimeHost } from './host.ts';

const workerdVersion = (): string => {
  const require = createRequire(import.meta.url);
  const miniflare = require('miniflare/package.json') as {
    version: string;
    dependencies?: Record<string, string>;
  };
  return `workerd ${miniflare.dependencies?.['workerd'] ?? '?'} (miniflare ${miniflare.version})`;
};

export const startWorkerdHost = async (): Promise<RuntimeHost> => {
  const script = await bundle(WORKERD_BUNDLE);
  const mf = new Miniflare({
    modules: true,
    script,
    // The newest date this workerd knows (its version is its build date).
    compatibilityDate: '2026-07-01',
  });
  try {
    await mf.ready;
  } catch (error) {
    await mf.dispose();
    throw error;
  }
  return {
    version: workerdVersion(),
    async run(job: Job): Promise<JobReply> {
      const response = await mf.dispatchFetch('http://runtime.invalid/job', {
        method: 'POST',
        body: JSON.stringify(job),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`the worker answered ${response.status}: ${text}`);
      return JSON.parse(text) as JobReply;
    },
    close: () => mf.dispose(),
  };
};
