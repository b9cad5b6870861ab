/**
 * What the rate-limit experiments (`pacing`, `herd`) share: every client against every server,
 * `runs` times each (run `r` seeded with `deriveSeed(seed, r)`, the same for every client), the stop
 * reasons of each pair's runs summed.
 */
import { deriveSeed } from './seeds.ts';

/** One server and client's runs. */
export interface PairRuns<S, C, R> {
  readonly server: S;
  readonly client: C;
  readonly results: readonly R[];
  /** Stop reasons summed over the runs. */
  readonly stopReasons: Readonly<Record<string, number>>;
}

export const runEachPair = <S, C, R extends { readonly stopReasons: Readonly<Record<string, number>> }>(
  o: {
    readonly servers: readonly S[];
    readonly clients: readonly C[];
    readonly runs: number;
    readonly seed: number;
  },
  simulate: (server: S, client: C, seed: number) => R,
  onProgress?: (done: number, total: number) => void,
): PairRuns<S, C, R>[] => {
  const total = o.runs * o.servers.length * o.clients.length;
  let done = 0;
  const pairs: PairRuns<S, C, R>[] = [];
  for (const server of o.servers) {
    for (const client of o.clients) {
      const results: R[] = [];
      for (let r = 0; r < o.runs; r++) {
        results.push(simulate(server, client, deriveSeed(o.seed, r)));
        onProgress?.(++done, total);
      }
      const stopReasons: Record<string, number> = {};
      for (const result of results)
        for (const [reason, count] of Object.entries(result.stopReasons))
          stopReasons[reason] = (stopReasons[reason] ?? 0) + count;
      pairs.push({ server, client, results, stopReasons });
    }
  }
  return pairs;
};
