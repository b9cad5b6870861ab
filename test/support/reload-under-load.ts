/**
 * A graceful reload under load (issue 36): requests of the mix of `mixed-load.ts` from one client,
 * 40 in flight, and the proxy reloaded twice while they run: once the backend has had a third of
 * 200, and again once it has had a third more after the first reload ended. A reload makes the old
 * process close its idle connections (HTTP/1.1) or send a GOAWAY (HTTP/2) as soon as the new one
 * serves, while the clients may be writing to them: the keep-alive race again, at a moment the
 * operator chose. A reload takes from 0.1 s to 2 s here, so the requests go on until 40 more have
 * started after the last one ended, and 200 in all.
 */
import { sleep } from './child-process.ts';
import type { RequestLogLine } from './log-file.ts';
import { type MixedOutcome, mixedOutcome, mixedRequest } from './mixed-load.ts';
import { type ClientName, createClient } from './node-clients.ts';
import type { ProxyStack } from './proxy-stack.ts';
import type { Sent } from './sent.ts';

export const RELOAD_REQUESTS = 200;
export const RELOAD_IN_FLIGHT = 40;
const RELOADS = 2;

export interface ReloadRun {
  /** Every request, in the order they ended (at least `RELOAD_REQUESTS`). */
  readonly sent: readonly Sent[];
  readonly log: readonly RequestLogLine[];
  readonly outcome: MixedOutcome;
  /** Reloads that completed while requests were in flight. */
  readonly reloads: number;
}

/** Runs the load through `client` over HTTP/1.1 (`tls`) or HTTP/2 (`h2`) against `stack`'s proxy. */
export const runReloadUnderLoad = async (
  stack: ProxyStack,
  client: ClientName,
  transport: 'tls' | 'h2',
): Promise<ReloadRun> => {
  const { proxy, backend } = stack;
  const api = await createClient(client, proxy.url, {}, { name: transport, ca: proxy.ca });
  let reloads = 0;
  let failed = false;
  const reloading = (async () => {
    try {
      for (let i = 0; i < RELOADS; i++) {
        const at = backend.requests.length + RELOAD_REQUESTS / 3;
        while (backend.requests.length < at) await sleep(2);
        await proxy.reload();
        reloads++;
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  })();
  const sent: Sent[] = [];
  let started = 0;
  let afterLast = 0;
  const more = () =>
    !failed && (reloads < RELOADS || started < RELOAD_REQUESTS || afterLast < RELOAD_IN_FLIGHT);
  const lane = async (): Promise<void> => {
    while (more()) {
      const request = mixedRequest('reload', started++);
      if (reloads === RELOADS) afterLast++;
      sent.push({ request, result: await api.send(request) });
    }
  };
  try {
    await Promise.all(Array.from({ length: RELOAD_IN_FLIGHT }, lane));
    await reloading;
  } finally {
    await api.close();
  }
  const log = await proxy.log.settled();
  return {
    sent,
    log,
    outcome: mixedOutcome(
      sent,
      backend.requests.map((r) => r.path),
      log,
    ),
    reloads,
  };
};
