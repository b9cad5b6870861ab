/**
 * The page's entry (bundled by esbuild for browsers): every client a browser has — the fetch
 * wrapper, ky, axios on its xhr and fetch adapters — and `globalThis.jitterbugRuntime.run(job)`,
 * which the Node side calls through puppeteer's `page.evaluate`.
 */
import type { Job, JobReply } from '../../protocol.ts';
import { axiosFetchClient, axiosXhrClient } from '../clients/axios.ts';
import { fetchClient } from '../clients/fetch.ts';
import { kyClient } from '../clients/ky.ts';
import { runJob } from '../run-job.ts';

export interface PageRuntime {
  run(job: Job): Promise<JobReply>;
}

const factories = {
  fetch: fetchClient,
  ky: kyClient,
  'axios-xhr': axiosXhrClient,
  'axios-fetch': axiosFetchClient,
};
(globalThis as { jitterbugRuntime?: PageRuntime }).jitterbugRuntime = {
  run: (job) => runJob(job, factories),
};
