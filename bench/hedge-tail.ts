/**
 * Hedged requests against a slow tail over loopback, with `withRetry` and undici's `retryInterceptor`
 * (`node --conditions=@jitterbug/source bench/hedge-tail.ts [--json]`): a check that hedging cuts the
 * tail, not a timing test. The server, in its own process so as not to delay the client's timers,
 * answers 2 % of requests (a seeded draw) after 200 ms, the rest after 1 ms, and counts them (losing
 * copies are extra load). 20 ms and 8 in flight: Node's fetch alone answered 1.4 % of requests after
 * more than 10 ms at 16 in flight on 2 CPUs, and a 10 ms hedge would copy the client's own hiccups.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHedging, getRetryInfo, type HedgeOptions, withRetry } from '@jitterbug/fetch';
import { retryInterceptor } from '@jitterbug/undici';
import { Agent, request } from 'undici';
import { converse } from './spawn.ts';
import { table } from './table.ts';

const [SLOW_SHARE, SLOW_MS, HEDGE_MS, IN_FLIGHT, WARMUP, REQUESTS] = [0.02, 200, 20, 8, 500, 5000];

const serve = (): void => {
  let [seed, received] = [1, 0];
  const server = createServer((_req, res) => {
    received++;
    seed = (seed * 48271) % 2147483647; // the same slow requests in every run
    setTimeout(() => res.destroyed || res.end('{"ok":true}'), seed / 2147483647 < SLOW_SHARE ? SLOW_MS : 1);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message) => (message === 'count' ? process.send?.(received) : process.exit(0)));
};

/** Sends one GET, reads its body, and says whether a hedged copy went out for it. */
const client = (name: 'fetch' | 'undici', hedge?: HedgeOptions) => {
  const options = hedge ? { hedge: createHedging(hedge) } : {};
  const [agent, f] = [new Agent(), withRetry(fetch, options)];
  const dispatcher = agent.compose(retryInterceptor(options));
  const send = async (url: string): Promise<boolean> => {
    const { body, headers } =
      name === 'fetch'
        ? await f(url).then((r) => ({ body: r, headers: r }))
        : await request(url, { dispatcher });
    await body.text();
    return getRetryInfo(headers)?.hedge !== undefined;
  };
  return { send, close: () => agent.close() };
};

// A fresh policy per variant: its own hedge budget (ratio 0.05 by default) and latency window.
const VARIANTS = [
  ['fetch', 'none'],
  ['fetch', `${HEDGE_MS} ms`, { delayMs: HEDGE_MS }],
  ['fetch', `${HEDGE_MS} ms, ratio 1`, { delayMs: HEDGE_MS, ratio: 1 }],
  ['fetch', 'p95', { delayMs: 'p95' }],
  ['undici', 'none'],
  ['undici', `${HEDGE_MS} ms`, { delayMs: HEDGE_MS }],
] as const satisfies readonly (readonly ['fetch' | 'undici', string, HedgeOptions?])[];

const measure = async (): Promise<{ note: string; table: string }> => {
  const server = converse('hedge-tail.ts', ['--server'], 'server');
  const { port } = (await server.ready) as { port: number };
  const received = async (): Promise<number> => {
    // Copies still on their way when the last answer came in reach the server a moment later.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return server.ask<number>('count');
  };
  const drive = async (send: (url: string) => Promise<boolean>, count: number) => {
    const [latencies, hedged] = [new Float64Array(count), new Uint8Array(count)];
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < count; i = next++) {
        const started = performance.now();
        hedged[i] = (await send(`http://127.0.0.1:${port}/item?i=${i}`)) ? 1 : 0;
        latencies[i] = performance.now() - started;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    return { latencies, hedged };
  };
  const rows: string[][] = [];
  try {
    for (const [name, label, hedge] of VARIANTS) {
      const { send, close } = client(name, hedge);
      await drive(send, WARMUP);
      const before = await received();
      const { latencies, hedged } = await drive(send, REQUESTS);
      const extra = (await received()) - before - REQUESTS;
      await close();
      // Slower than the fixed delay + 10 ms with no copy: the hedge budget was empty.
      const late = latencies.filter((ms, i) => !hedged[i] && ms > HEDGE_MS + 10).length;
      const sorted = latencies.sort();
      const at = (p: number): string => sorted[Math.ceil(p * REQUESTS) - 1]!.toFixed(1);
      const [count, fixed] = [hedged.reduce((a, h) => a + h, 0), typeof hedge?.delayMs === 'number'];
      const load = `${((100 * extra) / REQUESTS).toFixed(2)} %`;
      rows.push([name, label, at(0.5), at(0.99), at(0.999), load, String(count), fixed ? String(late) : '—']);
    }
  } finally {
    await server.end('stop');
  }
  const note = `${REQUESTS} GETs per variant, ${IN_FLIGHT} in flight, after ${WARMUP}; ${SLOW_SHARE * 100} % answered after ${SLOW_MS} ms, the rest after 1 ms. "${HEDGE_MS} ms": \`createHedging({ delayMs: ${HEDGE_MS} })\` (hedge budget ratio 0.05); "ratio 1": the most allowed; "p95": the latency window's 95th percentile. "Late, not hedged": slower than the delay + 10 ms with no copy, the budget empty (hedges come together when requests stall at once).`;
  const header = 'client|hedge|p50 ms|p99 ms|p99.9 ms|extra requests|hedged|late, not hedged'.split('|');
  return { note, table: table(header, rows) };
};

if (process.argv.includes('--server')) serve();
else if (import.meta.main) {
  const result = await measure();
  console.log(process.argv.includes('--json') ? JSON.stringify(result) : `${result.note}\n\n${result.table}`);
}
