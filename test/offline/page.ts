/**
 * The page's entry (bundled by esbuild for browsers): the clients a browser has, with jitterbug
 * attached, and `globalThis.offlineTest`, through which the Node side starts a request, watches its
 * retries, aborts it and reads how it ended, while it takes the page offline and back online.
 */
import type { RetryPolicyOptions } from '@jitterbug/core';
import type { ClientFactory } from '../runtimes/in-runtime/client.ts';
import { axiosFetchClient, axiosXhrClient } from '../runtimes/in-runtime/clients/axios.ts';
import { fetchClient } from '../runtimes/in-runtime/clients/fetch.ts';
import { kyClient } from '../runtimes/in-runtime/clients/ky.ts';
import { callRecord, retryRecord } from '../runtimes/in-runtime/record.ts';
import type { OfflineCall, OfflineJob, OfflineTest } from './protocol.ts';

const CLIENTS: Readonly<Record<OfflineJob['client'], ClientFactory>> = {
  fetch: fetchClient,
  ky: kyClient,
  'axios-xhr': axiosXhrClient,
  'axios-fetch': axiosFetchClient,
};

const calls: OfflineCall[] = [];
const controllers: AbortController[] = [];
const endings: Promise<unknown>[] = [];

const test: OfflineTest = {
  start(job) {
    const id = calls.length;
    const call: OfflineCall = { retries: [], ended: null };
    calls.push(call);
    const controller = new AbortController();
    controllers.push(controller);
    const options: RetryPolicyOptions = {
      random: () => 0,
      backoff: { strategy: 'full', baseMs: 1, capMs: 5 },
      ...job.options,
      onRetry: (event) => {
        call.retries.push(retryRecord(event));
      },
    };
    const client = CLIENTS[job.client]({ options });
    endings.push(
      client
        .send({
          method: job.method,
          url: job.url,
          ...(job.body === undefined ? {} : { body: { kind: 'text', value: job.body } }),
          signal: controller.signal,
        })
        .then((result) => {
          call.ended = callRecord(result);
          call.aborted = result.kind === 'error' && client.isAbort(result.error, ABORTED);
        }),
    );
    return id;
  },
  call: (id) => calls[id]!,
  abort: (id) => controllers[id]!.abort(ABORTED),
  ended: async (id) => {
    await endings[id];
    return calls[id]!;
  },
  online: () => navigator.onLine,
};

const ABORTED = new Error('the caller gave up');
(globalThis as { offlineTest?: OfflineTest }).offlineTest = test;
