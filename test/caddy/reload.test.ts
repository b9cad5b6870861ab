/**
 * Caddy reloaded twice (`caddy reload --force`: its new config's servers take the listeners over,
 * the old ones close their idle connections) while one client has 40 requests in flight, 200 or
 * more in all (`reload-under-load.ts`), through every client over TLS in what it speaks by default
 * (HTTP/2 for undici 8's, HTTP/1.1 for the others), default options: every GET and every keyed
 * POST must end 200, no POST without a key reach the backend twice, and nothing fail
 * `budget-exhausted`.
 */
import { describe, expect, it } from 'vitest';
import { type RunningCaddy, startCaddy } from '../support/caddy/caddy.ts';
import { expectMixedServed } from '../support/mixed-load.ts';
import { CLIENTS, tlsTransport } from '../support/node-clients.ts';
import { startProxyStack } from '../support/proxy-stack.ts';
import { RELOAD_REQUESTS, runReloadUnderLoad } from '../support/reload-under-load.ts';

describe.each(CLIENTS)('Caddy reloaded twice under load, %s', (client) => {
  it(`${RELOAD_REQUESTS}+ requests, 40 in flight: every GET and keyed POST 200, no POST twice, no budget-exhausted`, async () => {
    const stack = await startProxyStack<RunningCaddy>((backend) => startCaddy({}, backend));
    try {
      const run = await runReloadUnderLoad(stack, client, tlsTransport(client) === 'h2' ? 'h2' : 'tls');
      console.info(`${client}: ${run.reloads} reloads; ${JSON.stringify(run.outcome)}`);
      expect(run.reloads).toBe(2);
      expectMixedServed(run.outcome, run.sent.length);
    } finally {
      await stack.stop();
    }
  });
});
