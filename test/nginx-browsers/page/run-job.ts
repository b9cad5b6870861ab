/**
 * Runs one job in the page: every request at once through one client made for the job, real
 * timers and randomness (the scenarios measure a real server's pacing), and each request's retry
 * events kept by its URL. A request that has not settled by the job's `pendingAfterMs` is recorded
 * as pending, then aborted so that nothing of it runs into the next job.
 */
import type { CallResult, ClientFactory } from '../../runtimes/in-runtime/client.ts';
import { callRecord, retryRecord } from '../../runtimes/in-runtime/record.ts';
import type { ClientName, PageJob, PageOutcome, PageReply, PageRetry } from '../protocol.ts';

export type PageClients = Readonly<Record<ClientName, ClientFactory>>;

/** How long an aborted pending request may take to settle before it is called stuck. */
const SETTLE_AFTER_ABORT_MS = 2_000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const outcomeOf = (call: CallResult, retries: readonly PageRetry[]): PageOutcome => {
  const record = callRecord(call);
  return {
    kind: record.kind,
    status: record.status ?? null,
    error: record.error ?? null,
    info:
      record.info && call.info ? { ...record.info, serverDelaysUnread: call.info.serverDelaysUnread } : null,
    retries,
  };
};

export const runPageJob = async (job: PageJob, clients: PageClients): Promise<PageReply> => {
  const began = performance.now();
  const retries = new Map<string, PageRetry[]>();
  const client = clients[job.client]({
    // Hooks of the caller's, even none, make the ky client ask kyRetry for forcedRetries.
    ...(job.kyForcedRetries ? { kyHooks: {} } : {}),
    options: {
      ...job.options,
      onRetry: (event) => {
        const list = retries.get(event.url) ?? [];
        list.push({ ...retryRecord(event), serverDelayUnread: event.serverDelayUnread });
        retries.set(event.url, list);
      },
    },
  });
  const outcomes: (PageOutcome | undefined)[] = job.requests.map(() => undefined);
  const controllers = job.requests.map(() => new AbortController());
  const sends = job.requests.map((request, i) =>
    client.send({ ...request, signal: controllers[i]!.signal }).then(
      (call) => {
        outcomes[i] ??= outcomeOf(call, retries.get(request.url) ?? []);
      },
      (error: unknown) => {
        outcomes[i] ??= outcomeOf({ kind: 'error', error, info: undefined }, retries.get(request.url) ?? []);
      },
    ),
  );
  const all = Promise.all(sends);
  await Promise.race([all, sleep(job.pendingAfterMs)]);
  const pending = outcomes.flatMap((o, i) => (o === undefined ? [i] : []));
  for (const i of pending) {
    const url = job.requests[i]!.url;
    outcomes[i] = { kind: 'pending', status: null, error: null, info: null, retries: retries.get(url) ?? [] };
    controllers[i]!.abort(new Error('pending past the job’s limit'));
  }
  if (pending.length > 0) {
    const settled = await Promise.race([
      all.then(() => true),
      sleep(SETTLE_AFTER_ABORT_MS).then(() => false),
    ]);
    if (!settled) for (const i of pending) outcomes[i] = { ...outcomes[i]!, stuck: true };
  }
  return { outcomes: outcomes as PageOutcome[], ms: Math.round(performance.now() - began) };
};
