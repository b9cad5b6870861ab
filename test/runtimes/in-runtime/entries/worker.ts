/**
 * The workerd module worker (bundled by esbuild): each request to it carries one job as JSON and
 * is answered with the job's reply. The scenario's requests go from the worker to the scripted
 * server on 127.0.0.1 with the worker's own fetch.
 */
import type { Job } from '../../protocol.ts';
import { fetchClient } from '../clients/fetch.ts';
import { kyClient } from '../clients/ky.ts';
import { runJob } from '../run-job.ts';

const factories = { fetch: fetchClient, ky: kyClient };

export default {
  async fetch(request: Request): Promise<Response> {
    const job = (await request.json()) as Job;
    return Response.json(await runJob(job, factories));
  },
};
