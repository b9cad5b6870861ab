/**
 * Runs one job inside the runtime: finds the scenario, gives it a context (its prefix, the client
 * under test, the injected sleeps), and turns what it reports into a JSON reply. A scenario that
 * throws is a failure of the harness, replied as such with its stack.
 */
import type { RetryPolicyOptions } from '@jitterbug/core';
import type { ClientName, Job, JobReply, RetryRecord } from '../protocol.ts';
import type { RunContext } from '../scenario.ts';
import { scenarioById } from '../scenarios/index.ts';
import type { ClientFactory, ClientSetup, Sleep } from './client.ts';
import { errorShape } from './error-shape.ts';
import { callRecord, retryRecord } from './record.ts';

/** The clients this runtime has. */
export type ClientFactories = Readonly<Partial<Record<ClientName, ClientFactory>>>;

const abortable = (signal: AbortSignal | undefined, ms: number): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export const runJob = async (job: Job, factories: ClientFactories): Promise<JobReply> => {
  try {
    const scenario = scenarioById(job.scenario);
    const factory = factories[job.client];
    if (!factory) throw new Error(`no client ${job.client} in ${job.runtime}`);
    const waits: number[] = [];
    const retries: RetryRecord[] = [];
    const waiters: { n: number; resolve: () => void }[] = [];
    const noteWait = (ms: number): void => {
      waits.push(ms);
      for (const w of waiters.filter((w) => waits.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    };
    // 0 ms on a real timer: a wait still yields to the event loop as a real one would.
    const sleep: Sleep = (ms, signal) => {
      noteWait(ms);
      return abortable(signal, 0);
    };
    const holdingSleep: Sleep = (ms, signal) => {
      noteWait(ms);
      return new Promise((_, reject) => {
        if (signal?.aborted) reject(signal.reason);
        else signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
    };
    const ctx: RunContext = {
      runtime: job.runtime,
      client: job.client,
      url: (path) => `${job.baseUrl}${job.prefix}${path}`,
      path: (path) => `${job.prefix}${path}`,
      sleep,
      holdingSleep,
      waited: (n = 1) =>
        waits.length >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve })),
      rawFetch: (input, init) => fetch(input, init),
      connect(setup: Partial<ClientSetup> = {}) {
        const own = setup.options ?? {};
        const options: RetryPolicyOptions = {
          random: () => 0,
          backoff: { strategy: 'full', baseMs: 1, capMs: 5 },
          sleep,
          ...own,
          onRetry: (event) => {
            retries.push(retryRecord(event));
            return own.onRetry?.(event);
          },
        };
        return factory({ options, ...(setup.kyHooks ? { kyHooks: setup.kyHooks } : {}) });
      },
    };
    const output = await scenario.run(ctx);
    return {
      ok: true,
      result: {
        calls: output.calls.map(callRecord),
        waits,
        retries,
        ...(output.notes ? { notes: output.notes } : {}),
      },
    };
  } catch (error) {
    return { ok: false, error: errorShape(error, true) };
  }
};
