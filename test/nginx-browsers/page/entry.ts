/**
 * The page nginx serves to the browser (bundled by esbuild): every client a browser has with
 * jitterbug attached — `withRetry(fetch)`, ky with `kyRetry`, axios on its xhr and fetch adapters —
 * and `globalThis.jitterbugNginx.run(job)`, which the Node side calls through `page.evaluate`.
 */
import { fetchClient } from '../../runtimes/in-runtime/clients/fetch.ts';
import { kyClient } from '../../runtimes/in-runtime/clients/ky.ts';
import type { PageJob, PageReply } from '../protocol.ts';
import { axiosFetchClient, axiosXhrClient } from './axios.ts';
import { type PageClients, runPageJob } from './run-job.ts';

export interface NginxPage {
  run(job: PageJob): Promise<PageReply>;
}

const clients: PageClients = {
  fetch: fetchClient,
  ky: kyClient,
  'axios-xhr': axiosXhrClient,
  'axios-fetch': axiosFetchClient,
};

(globalThis as { jitterbugNginx?: NginxPage }).jitterbugNginx = { run: (job) => runPageJob(job, clients) };
