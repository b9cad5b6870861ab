/**
 * A token that expires for every request in flight, through every client: 20 GETs sent at once with
 * an expired token, and `credential: createCredentialRefresh({ refresh })`. The 20 refusals share
 * one refresh (one `POST /token`), and each request is sent once more, with the new token, which
 * jitterbug sets itself. Without it, each 401 would need its own retry hook, and its own refresh.
 *
 * Run: node --conditions=@jitterbug/source examples/credential-refresh.ts
 */
import { createCredentialRefresh } from '@jitterbug/core';
import { CLIENTS } from './between-attempts.ts';
import type { FlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';

const IN_FLIGHT = 20;

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  for (const [name, send] of Object.entries(CLIENTS)) {
    let refreshes = 0;
    // One per API: every policy given it (here one per request) shares its refresh.
    const credential = createCredentialRefresh({
      refresh: async () => {
        refreshes++;
        // In a real program, a call to your auth server (and the token kept for new requests).
        const token = await (await fetch(`${server.url}/token`, { method: 'POST' })).text();
        return `Bearer ${token}`;
      },
    });
    const url = `${server.url}/me/${name.replace(' ', '-')}`;
    const results = await Promise.all(
      Array.from({ length: IN_FLIGHT }, () => send({ credential }, url, { authorization: 'Bearer expired' })),
    );
    const ok = results.filter(([status]) => status === 200).length;
    const attempts = results.reduce((sum, [, n]) => sum + n, 0);
    log(
      `  ${name}: ${IN_FLIGHT} GETs with an expired token: ${ok} × 200, ${attempts} attempts, ${refreshes} refresh`,
    );
  }
};

if (import.meta.main) await runStandalone(main);
