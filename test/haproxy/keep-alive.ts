/**
 * Keep-alive races against HAProxy (issue 36): with `timeout http-keep-alive 300ms` HAProxy closes
 * a client connection idle that long (HTTP/1.1: it closes the socket; HTTP/2: a GOAWAY). Requests
 * come in 5 waves of 40 from one client, each wave once the keep-alive timeout has run out for about
 * half the last wave's connections, so that some of its requests are written on connections HAProxy
 * is closing at that moment (a wave's answers spread over 20 to 600 ms here). The mix of
 * `mixed-load.ts`; a request the race cost is one neither HAProxy's log nor the backend saw.
 */
import type { ConformanceRequest } from '../conformance/driver.ts';
import { sleep } from '../support/child-process.ts';
import type { HaproxySetup } from '../support/haproxy/config.ts';
import { type RunningHaproxy, startHaproxy } from '../support/haproxy/haproxy.ts';
import type { HaproxyLogLine } from '../support/haproxy/log.ts';
import { type MixedOutcome, mixedOutcome, mixedRequest } from '../support/mixed-load.ts';
import { type ClientName, createClient } from '../support/node-clients.ts';
import { startProxyStack } from '../support/proxy-stack.ts';
import { type Sent, sendAll } from '../support/sent.ts';

export const KEEP_ALIVE_MS = 300;
export const WAVES = 5;
export const WAVE_SIZE = 40;

export interface KeepAliveRun {
  readonly sent: readonly Sent[];
  readonly log: readonly HaproxyLogLine[];
  readonly outcome: MixedOutcome;
  /** Client connections HAProxy saw (by client port): fewer than 200 when some were reused. */
  readonly connections: number;
}

/**
 * Runs the waves through `client` over HTTP/1.1 (`tls`) or HTTP/2 (`h2`). Each wave after the first
 * starts `idleMs` after the median end of the last one's requests: about half its connections have
 * then been idle longer than the timeout, and HAProxy is closing the others one after another.
 */
export const runKeepAlive = async (
  client: ClientName,
  transport: 'tls' | 'h2',
  setup: HaproxySetup = {},
  idleMs = KEEP_ALIVE_MS,
): Promise<KeepAliveRun> => {
  const stack = await startProxyStack<RunningHaproxy>((backend) =>
    startHaproxy({ keepAliveMs: KEEP_ALIVE_MS, ...setup }, backend),
  );
  try {
    const api = await createClient(client, stack.proxy.url, {}, { name: transport, ca: stack.proxy.ca });
    let ends: number[] = [];
    const timed = {
      send: (request: ConformanceRequest) => api.send(request).finally(() => ends.push(Date.now())),
      close: () => api.close(),
    };
    const sent: Sent[] = [];
    try {
      for (let wave = 0; wave < WAVES; wave++) {
        if (wave > 0) {
          const median = ends.sort((a, b) => a - b)[ends.length >> 1]!;
          await sleep(Math.max(0, median + idleMs - Date.now()));
        }
        ends = [];
        const requests = Array.from({ length: WAVE_SIZE }, (_, i) =>
          mixedRequest('ka', wave * WAVE_SIZE + i),
        );
        sent.push(...(await sendAll(timed, requests, WAVE_SIZE)));
      }
    } finally {
      await api.close();
    }
    const log = await stack.proxy.log.settled();
    return {
      sent,
      log,
      outcome: mixedOutcome(
        sent,
        stack.backend.requests.map((r) => r.path),
        log,
      ),
      connections: new Set(log.map((l) => l.clientPort)).size,
    };
  } finally {
    await stack.stop();
  }
};
