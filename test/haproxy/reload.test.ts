/**
 * HAProxy reloaded gracefully twice (`SIGUSR2` to the master) while one client has 40 requests in
 * flight, 200 or more in all (`reload-under-load.ts`), through every client over TLS in what it
 * speaks by default (HTTP/2 for undici 8's, HTTP/1.1 for the others), default options: every GET
 * and every keyed POST must end 200, no POST without a key reach the backend twice, and nothing
 * fail `budget-exhausted`. And the server's own remedy, which the READMEs advise: with `option
 * idle-close-on-response` the old worker answers one more request on an idle HTTP/1.1 connection
 * before it closes it, so even the POSTs without a key all end 200 (axios, the client these races
 * hit hardest).
 */
import { describe, expect, it } from 'vitest';
import type { HaproxySetup } from '../support/haproxy/config.ts';
import { type RunningHaproxy, startHaproxy } from '../support/haproxy/haproxy.ts';
import { countOfKind, expectMixedServed } from '../support/mixed-load.ts';
import { CLIENTS, type ClientName, tlsTransport } from '../support/node-clients.ts';
import { startProxyStack } from '../support/proxy-stack.ts';
import { RELOAD_REQUESTS, type ReloadRun, runReloadUnderLoad } from '../support/reload-under-load.ts';

const reloadRun = async (client: ClientName, setup: HaproxySetup): Promise<ReloadRun> => {
  const stack = await startProxyStack<RunningHaproxy>((backend) => startHaproxy(setup, backend));
  try {
    const run = await runReloadUnderLoad(stack, client, tlsTransport(client) === 'h2' ? 'h2' : 'tls');
    console.info(`${client}: ${run.reloads} reloads; ${JSON.stringify(run.outcome)}`);
    return run;
  } finally {
    await stack.stop();
  }
};

describe.each(CLIENTS)('HAProxy reloaded twice under load, %s', (client) => {
  it(`${RELOAD_REQUESTS}+ requests, 40 in flight: every GET and keyed POST 200, no POST twice, no budget-exhausted`, async () => {
    const run = await reloadRun(client, {});
    expect(run.reloads).toBe(2);
    expectMixedServed(run.outcome, run.sent.length);
  });
});

describe('HAProxy with option idle-close-on-response reloaded twice under load, axios', () => {
  it(`${RELOAD_REQUESTS}+ requests, 40 in flight: every request of every kind ends 200`, async () => {
    const run = await reloadRun('axios', { idleCloseOnResponse: true });
    expect(run.reloads).toBe(2);
    expectMixedServed(run.outcome, run.sent.length);
    expect(run.outcome.endings.POST).toEqual({ '200': countOfKind(run.sent.length, 'POST') });
  });
});
