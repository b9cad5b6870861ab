/**
 * Hedged requests against a loopback server with a slow tail: the real hedging code of
 * `@jitterbug/fetch` (`withRetry` over Node's fetch) and `@jitterbug/undici` (`retryInterceptor` on
 * an undici `Agent`, with `request()`), with and without the core's `hedge` option.
 *
 *   node --conditions=@jitterbug/source bench/hedge-tail.ts [--requests N] [--concurrency C] [--json]
 *
 * The server (`node:http`, in a child process of its own, so that its work does not delay the
 * client's timers) answers every request it receives after a pause: 2 % of them, drawn from a
 * seeded random source, after 200 ms, the others after 1 ms (a timer: its "work" costs no CPU, so it
 * never queues; `jitterbug-sim tail` models the queueing). It counts the requests it receives, so
 * the extra load is the server's count, cancelled losing copies included. `make bench` runs it with
 * `--json` (a last line of JSON for bench/RESULTS.md). Latencies are wall-clock and vary with the
 * machine; this is a check that hedging cuts the tail, not a timing test.
 *
 * Why 20 ms and 8 at a time: Node's fetch alone, against a 1 ms server, answered 1.4 % of requests
 * after more than 10 ms at 16 in flight on the 2-CPU build machine (0.8 % at 8): a 10 ms hedge
 * would copy the client's own hiccups, all in-flight requests at once, and spend the hedge budget
 * on them.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createHedging, getRetryInfo, type RetryOptions, seededRandom } from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { retryInterceptor } from '@jitterbug/undici';
import { Agent, request } from 'undici';

const SLOW_SHARE = 0.02;
const SLOW_MS = 200;
const FAST_MS = 1;
const HEDGE_MS = 20;

/** The server process: listens, tells the parent its port, answers `count` with requests received. */
const serve = (): void => {
  const slow = seededRandom(1);
  let received = 0;
  const server = createServer((_req, res) => {
    received++;
    const ms = slow() < SLOW_SHARE ? SLOW_MS : FAST_MS;
    setTimeout(() => {
      // A losing copy's client has gone: nothing to answer.
      if (res.destroyed) return;
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    }, ms);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message) => {
    if (message === 'count') process.send?.({ received });
    else process.exit(0);
  });
};

/**
 * Sends one GET and reads its body; resolves when the caller has the whole answer, with whether a
 * hedged copy was sent for it (its retry info's `hedge`).
 */
type Send = (url: string) => Promise<boolean>;

interface Variant {
  readonly client: 'fetch' | 'undici';
  readonly hedge: string;
  /** The fixed hedge delay, if any. */
  readonly delayMs?: number;
  readonly make: () => { send: Send; close: () => Promise<void> };
}

// Before any request, only a fixed delay is known (a percentile waits for latencies).
const delayOf = (options: RetryOptions): { delayMs?: number } => {
  const delayMs = options.hedge ? options.hedge.delay() : undefined;
  return delayMs === undefined ? {} : { delayMs };
};

const fetchVariant = (hedge: string, options: RetryOptions): Variant => ({
  client: 'fetch',
  hedge,
  ...delayOf(options),
  make: () => {
    const fetchWithRetry = withRetry(fetch, options);
    return {
      send: async (url) => {
        const response = await fetchWithRetry(url);
        await response.text();
        return getRetryInfo(response)?.hedge !== undefined;
      },
      close: async () => undefined,
    };
  },
});

const undiciVariant = (hedge: string, options: RetryOptions): Variant => ({
  client: 'undici',
  hedge,
  ...delayOf(options),
  make: () => {
    const agent = new Agent();
    const dispatcher = agent.compose(retryInterceptor(options));
    return {
      send: async (url) => {
        const { body, headers } = await request(url, { dispatcher });
        await body.text();
        return getRetryInfo(headers)?.hedge !== undefined;
      },
      close: () => agent.close(),
    };
  },
});

// A fresh policy per variant (its own hedge budget and latency window); the cooldown and the retry
// budget play no part (the server never fails), and are left at the core's defaults.
const VARIANTS: readonly Variant[] = [
  fetchVariant('none', {}),
  fetchVariant(`${HEDGE_MS} ms`, { hedge: createHedging({ delayMs: HEDGE_MS }) }),
  fetchVariant(`${HEDGE_MS} ms, ratio 1`, { hedge: createHedging({ delayMs: HEDGE_MS, ratio: 1 }) }),
  fetchVariant('p95', { hedge: createHedging({ delayMs: 'p95' }) }),
  undiciVariant('none', {}),
  undiciVariant(`${HEDGE_MS} ms`, { hedge: createHedging({ delayMs: HEDGE_MS }) }),
];

/** What one variant measured. */
export interface HedgeTailResult {
  readonly client: string;
  readonly hedge: string;
  readonly requests: number;
  /** Requests the server received for them, losing copies included. */
  readonly received: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  /** Requests a hedged copy was sent for. */
  readonly hedged: number;
  /**
   * Requests that took longer than the fixed hedge delay + 10 ms with no hedged copy: the hedge
   * budget refused it (`undefined` for the variants without a fixed delay).
   */
  readonly lateUnhedged: number | undefined;
  readonly seconds: number;
}

/** Nearest-rank percentile of sorted values. */
const percentile = (sorted: Float64Array, p: number): number =>
  sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;

const ms = (v: number): string => (v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : v.toFixed(0));

const main = async (): Promise<void> => {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const option = (name: string, fallback: number, max: number): number => {
    const i = args.indexOf(`--${name}`);
    if (i < 0) return fallback;
    const value = Number(args[i + 1]);
    if (!(Number.isInteger(value) && value >= 1 && value <= max)) {
      console.error(`hedge-tail: --${name} must be an integer from 1 to ${max}, got "${args[i + 1] ?? ''}"`);
      process.exit(2);
    }
    return value;
  };
  const requests = option('requests', 5000, 100_000);
  const concurrency = option('concurrency', 8, 256);
  // Before each variant's measured requests: warm code, open connections, a full 'p95' window.
  const warmUp = 500;

  const server = fork(fileURLToPath(import.meta.url), ['--server'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const [{ port }] = (await once(server, 'message')) as [{ port: number }];
  const origin = `http://127.0.0.1:${port}`;
  const received = async (): Promise<number> => {
    server.send('count');
    const [reply] = (await once(server, 'message')) as [{ received: number }];
    return reply.received;
  };

  /** `count` requests, `concurrency` at a time; each one's latency in ms, and whether it was hedged. */
  const drive = async (
    send: Send,
    count: number,
  ): Promise<{ latencies: Float64Array; hedged: Uint8Array }> => {
    const latencies = new Float64Array(count);
    const hedged = new Uint8Array(count);
    let next = 0;
    const worker = async (): Promise<void> => {
      for (let i = next++; i < count; i = next++) {
        const started = performance.now();
        hedged[i] = (await send(`${origin}/item?i=${i}`)) ? 1 : 0;
        latencies[i] = performance.now() - started;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
    return { latencies, hedged };
  };

  const results: HedgeTailResult[] = [];
  try {
    for (const variant of VARIANTS) {
      const { send, close } = variant.make();
      try {
        await drive(send, warmUp);
        // Copies still on their way when the last answer came in reach the server a moment later.
        await new Promise((resolve) => setTimeout(resolve, 50));
        const before = await received();
        const started = performance.now();
        const run = await drive(send, requests);
        const seconds = (performance.now() - started) / 1000;
        let hedged = 0;
        let lateUnhedged = 0;
        for (let i = 0; i < requests; i++) {
          hedged += run.hedged[i]!;
          if (variant.delayMs !== undefined && !run.hedged[i] && run.latencies[i]! > variant.delayMs + 10)
            lateUnhedged++;
        }
        const latencies = run.latencies.sort();
        await new Promise((resolve) => setTimeout(resolve, 50));
        results.push({
          client: variant.client,
          hedge: variant.hedge,
          requests,
          received: (await received()) - before,
          p50Ms: percentile(latencies, 50),
          p99Ms: percentile(latencies, 99),
          p999Ms: percentile(latencies, 99.9),
          hedged,
          lateUnhedged: variant.delayMs === undefined ? undefined : lateUnhedged,
          seconds,
        });
      } finally {
        await close();
      }
    }
  } finally {
    server.send('stop');
  }

  const header = [
    'client',
    'hedge',
    'p50 ms',
    'p99 ms',
    'p99.9 ms',
    'extra requests (server)',
    'hedged',
    'late, not hedged',
    'time s',
  ];
  const rows = results.map((r) => [
    r.client,
    r.hedge,
    ms(r.p50Ms),
    ms(r.p99Ms),
    ms(r.p999Ms),
    `${((100 * (r.received - r.requests)) / r.requests).toFixed(2)} %`,
    String(r.hedged),
    r.lateUnhedged === undefined ? '—' : String(r.lateUnhedged),
    r.seconds.toFixed(2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]): string =>
    `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const table = [line(header), `| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`, ...rows.map(line)].join(
    '\n',
  );
  const note =
    `${requests.toLocaleString('en')} GETs per variant, ${concurrency} at a time, after ${warmUp} warm-up requests, ` +
    `against a loopback \`node:http\` server in its own process that answers ${100 * SLOW_SHARE} % of the requests it receives after ${SLOW_MS} ms ` +
    `and the others after ${FAST_MS} ms (\`bench/hedge-tail.ts\`). "${HEDGE_MS} ms": \`hedge: createHedging({ delayMs: ${HEDGE_MS} })\` with the core's hedge ` +
    `budget (ratio 0.05, one token held); "ratio 1": \`ratio: 1\`, the most the option allows (still one token held); "p95": the 95th percentile ` +
    `of the policy's latency window. Extra requests: what the server received beyond one per request. ` +
    `"Late, not hedged": requests slower than the fixed delay + 10 ms that got no hedged copy, because the hedge budget ` +
    `was empty (hedges come together when several requests stall at once); they are what is left of the tail.`;
  console.log(`${note}\n\n${table}`);
  if (json) console.log(JSON.stringify({ results, note, table }));
};

if (process.argv.includes('--server')) serve();
else await main();
