/**
 * A probe, not part of `make bench`: where a client's loopback overhead comes from, step by step.
 * Each variant adds one piece of what jitterbug does per request, and runs in a fresh process
 * against the bench server, one process at a time (rounds rotate the order). With two CPUs or more
 * the server is pinned to CPU 0 and the clients to CPU 1, which narrowed a raw client's spread to
 * about ±3 % on this machine, apart from about one run in eight.
 *
 *   node --conditions=@jitterbug/source bench/probes/loopback-steps.ts [axios|ky] [rounds] [requests]
 *
 * axios: `raw`; `wrapper` (a request interceptor and an adapter that calls axios' http adapter,
 * nothing else); `begin` (the wrapper plus `policy.begin` for the request); `settle` (plus
 * `run.settle(status)` on the response, which finishes the run and builds its summary);
 * `jitterbug` (`attachRetry`); `peer` (axios-retry).
 *
 * ky: `raw` (`retry: 0`); `init-noop` (the peer's retry option and an `init` hook that does
 * nothing: what ky itself spends on a call that carries an `init` hook); `jitterbug` (`kyRetry`);
 * `peer` (ky's own retry).
 *
 * Prints each variant's median client CPU per request and its difference to `raw`, and every run.
 */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { axiosClient, axiosWith } from '../clients/axios.ts';
import { kyVariantOptions, kyWith } from '../clients/ky.ts';
import type { BenchClient, VariantKind } from '../clients/types.ts';
import { JITTERBUG_OPTIONS } from '../config.ts';
import { measure, runRequests } from '../load.ts';
import { runChild, STEADY_STATE_FLAGS, startServer } from '../spawn.ts';
import { median } from '../stats.ts';

const VARIANTS = {
  axios: ['raw', 'wrapper', 'begin', 'settle', 'jitterbug', 'peer'],
  ky: ['raw', 'init-noop', 'jitterbug', 'peer'],
} as const;
type ClientName = keyof typeof VARIANTS;
type Variant = (typeof VARIANTS)[ClientName][number];

const CONCURRENCY = 16;
const WARM_UP = 3000;

const axiosStep = (variant: Variant, origin: string): Promise<BenchClient> => {
  if (variant === 'raw' || variant === 'jitterbug' || variant === 'peer') return axiosClient(variant, origin);
  return axiosWith(origin, async (api) => {
    const { default: axios } = await import('axios');
    const { createRetryPolicy } = await import('@jitterbug/core');
    const policy = createRetryPolicy(JITTERBUG_OPTIONS);
    const http = axios.getAdapter('http');
    const wrapped: typeof http = (config) => {
      if (variant === 'wrapper') return http(config);
      const run = policy.begin({ method: config.method ?? 'get', url: `${config.baseURL}${config.url}` });
      if (variant === 'begin') return http(config);
      return http(config).then((response) => {
        run.settle(response.status);
        return response;
      });
    };
    api.interceptors.request.use(
      (config) => {
        config.adapter = wrapped;
        return config;
      },
      undefined,
      { synchronous: true },
    );
  });
};

const kyStep = async (variant: Variant, origin: string): Promise<BenchClient> =>
  kyWith(origin, await kyVariantOptions(variant as VariantKind | 'init-noop'));

const client = (name: ClientName, variant: Variant, origin: string): Promise<BenchClient> =>
  name === 'axios' ? axiosStep(variant, origin) : kyStep(variant, origin);

const [mode = '', ...rest] = process.argv.slice(2);

if (mode === 'child') {
  const [name, variant, origin, requests] = rest as [ClientName, Variant, string, string];
  const c = await client(name, variant, origin);
  await runRequests(c, WARM_UP, CONCURRENCY, () => '/ok');
  const result = await measure(c, Number(requests), CONCURRENCY, () => '/ok');
  await c.close();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  const name = (mode || 'axios') as ClientName;
  if (!(name in VARIANTS)) throw new TypeError(`unknown client "${name}": axios or ky`);
  const variants: readonly Variant[] = VARIANTS[name];
  const rounds = Number(rest[0] ?? 8);
  const requests = Number(rest[1] ?? 10_000);
  const server = await startServer();
  const pin = (cpu: number, pid: number): boolean => {
    try {
      execFileSync('taskset', ['-p', '-c', String(cpu), String(pid)], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  // The clients inherit this process' CPU.
  const pinned = availableParallelism() >= 2 && pin(0, server.pid) && pin(1, process.pid);
  console.log(`${name}: ${rounds} rounds × ${requests} requests, ${pinned ? 'pinned' : 'not pinned'}`);
  const runs = new Map<Variant, number[]>(variants.map((v) => [v, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + round) % variants.length]!;
      const result = await runChild<{ cpuUs: number; failures: number }>(
        'probes/loopback-steps.ts',
        ['child', name, variant, server.origin, String(requests)],
        STEADY_STATE_FLAGS,
      );
      if (result.failures > 0) throw new Error(`${variant}: ${result.failures} requests failed`);
      runs.get(variant)!.push(result.cpuUs / requests);
    }
  }
  await server.stop();
  const raw = median(runs.get('raw')!);
  for (const [variant, values] of runs) {
    const m = median(values);
    const diff = variant === 'raw' ? '' : `${m - raw >= 0 ? '+' : ''}${(100 * (m / raw - 1)).toFixed(1)} %`;
    console.log(
      `${variant.padEnd(10)} ${m.toFixed(1).padStart(7)} µs/req ${diff.padStart(8)}   runs ${values.map((v) => v.toFixed(0)).join(' ')}`,
    );
  }
}
