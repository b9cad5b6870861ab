/**
 * The client rounds: in every round, each client runs its raw, jitterbug and peer variants, each in
 * a fresh process, side by side (started together, in an order that rotates from round to round).
 * Processes that run at the same time see the same machine load, so ratios are taken per round.
 *
 * Side by side rather than one after the other: on this shared machine, load changes between two
 * consecutive processes moved a raw/raw ratio by ±10 % and more; processes running at the same
 * time moved it by about ±2 % (bench/profiling.md).
 */
import type { ClientOutput } from './client.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import { type ClientPlan, CONCURRENCY, PLANS, ROUNDS } from './plan.ts';
import { runChild, STEADY_STATE_FLAGS } from './spawn.ts';

export const KINDS: readonly VariantKind[] = ['raw', 'jitterbug', 'peer'];

export interface ClientRounds {
  readonly client: ClientName;
  readonly plan: ClientPlan;
  /** One entry per round per variant; `undefined` where the variant did not run. */
  readonly runs: Record<VariantKind, (ClientOutput | undefined)[]>;
  /** Why a variant did not run (its first failure; it is not tried again). */
  readonly errors: Partial<Record<VariantKind, string>>;
}

const rotate = <T>(items: readonly T[], by: number): T[] =>
  items.map((_, i) => items[(i + by) % items.length]!);

export const runRounds = async (
  clients: readonly ClientName[],
  origin: string,
  onProgress: (line: string) => void,
): Promise<ClientRounds[]> => {
  const results = clients.map(
    (client): ClientRounds => ({
      client,
      plan: PLANS[client],
      runs: { raw: [], jitterbug: [], peer: [] },
      errors: {},
    }),
  );
  for (let round = 0; round < ROUNDS; round++) {
    for (const r of results) {
      const { plan } = r;
      const runOne = async (kind: VariantKind): Promise<void> => {
        if (r.errors[kind]) {
          r.runs[kind][round] = undefined;
          return;
        }
        const job = {
          client: r.client,
          kind,
          origin,
          concurrency: CONCURRENCY,
          warmup: plan.warmup,
          requests: plan.requests,
          retryWarmup: plan.retryWarmup,
          retryRequests: kind === 'raw' ? 0 : plan.retryRequests,
        };
        try {
          const output = await runChild<ClientOutput>('client.ts', [JSON.stringify(job)], STEADY_STATE_FLAGS);
          const failures = output.success.failures + (output.retry?.failures ?? 0);
          if (failures > 0) throw new Error(`${failures} requests did not end in 200`);
          r.runs[kind][round] = output;
        } catch (error) {
          r.errors[kind] = (error as Error).message;
          r.runs[kind][round] = undefined;
        }
      };
      await Promise.all(rotate(KINDS, round).map(runOne));
    }
    onProgress(`round ${round + 1}/${ROUNDS} done`);
  }
  return results;
};
