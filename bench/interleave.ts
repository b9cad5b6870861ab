/**
 * One session of a client: its processes (every variant twice for the success path, jitterbug and
 * the peer twice for the retry path) are started together and warmed up one at a time, then take turns, one measured block
 * at a time, for a number of cycles. A cycle runs every block kind (the response sizes) through
 * every process in a rotating order, so that the blocks that are compared ran one after the other
 * within a fraction of a second, each alone on the clients' CPU with the server on its own.
 *
 * The twins are the A/A pairs that measure the method's own noise.
 *
 * The retry path has sessions of its own: retried requests leave a process's heap in another state
 * (more promoted garbage, more major collections), which made a retrying process's success path
 * cost up to 10 % more than its raw twin's, through no fault of its retry code.
 *
 * Why turns and not whole processes: on this shared VM a client's CPU per request drifts by tens of
 * per cent over minutes (other guests, the host), and two processes run side by side disturb each
 * other. Blocks a few tens of milliseconds long, interleaved, see the same drift; ratios are taken
 * per cycle, then summarised over cycles and sessions (`analyse.ts`).
 */
import type { SizeName } from './bodies.ts';
import type { BlockOrder, ClientSetup } from './client.ts';
import type { ClientName, VariantKind } from './clients/types.ts';
import type { PhaseResult } from './load.ts';
import { type Conversation, MEASURED_FLAGS, startConversation } from './spawn.ts';

/**
 * The processes of a success-path session: every variant twice. The twins are the A/A pairs, and
 * a variant is compared pair against pair, so that one process that runs dearer than its twin for
 * its whole life (about one in six did, by 10–20 %) moves a comparison by half as much.
 */
export const SLOTS = ['raw', 'raw2', 'jitterbug', 'jitterbug2', 'peer', 'peer2'] as const;
export type Slot = (typeof SLOTS)[number];
export const KIND_OF: Record<Slot, VariantKind> = {
  raw: 'raw',
  raw2: 'raw',
  jitterbug: 'jitterbug',
  jitterbug2: 'jitterbug',
  peer: 'peer',
  peer2: 'peer',
};

export type BlockName = SizeName | 'retry';

export interface SessionPlan {
  /** The processes of the session (a raw client has no retry path). */
  readonly slots: readonly Slot[];
  readonly concurrency: number;
  /** Warm-up requests by block kind (the kinds the session measures). */
  readonly warmup: Readonly<Partial<Record<BlockName, number>>>;
  /** Cycles run first and not kept (see `plan.ts`). */
  readonly settleCycles: number;
  /** Turns of every block kind through every process. */
  readonly cycles: number;
  /** Requests per block, by kind; the kinds run in this order within a cycle. */
  readonly blocks: Readonly<Partial<Record<BlockName, number>>>;
}

export interface BlockResult {
  readonly block: BlockName;
  readonly cycle: number;
  readonly slot: Slot;
  readonly result: PhaseResult;
}

export interface Session {
  readonly client: ClientName;
  readonly blocks: BlockResult[];
  /** Why a slot stopped taking turns (its first failure). */
  readonly errors: Partial<Record<Slot, string>>;
  readonly seconds: number;
}

const rotate = <T>(items: readonly T[], by: number): T[] =>
  items.map((_, i) => items[(i + by) % items.length]!);

export const runSession = async (client: ClientName, origin: string, plan: SessionPlan): Promise<Session> => {
  const started = performance.now();
  const errors: Session['errors'] = {};
  const blocks: BlockResult[] = [];
  const live = new Map<Slot, Conversation>();
  await Promise.all(
    plan.slots.map(async (slot) => {
      const kind = KIND_OF[slot];
      const setup: ClientSetup = {
        client,
        kind,
        origin,
        concurrency: plan.concurrency,
        warmup: plan.warmup,
      };
      const { conversation, ready } = startConversation(
        'client.ts',
        [JSON.stringify(setup)],
        MEASURED_FLAGS,
        'client',
      );
      try {
        await ready;
        live.set(slot, conversation);
      } catch (error) {
        errors[slot] = (error as Error).message;
      }
    }),
  );
  // One at a time: warmed up together on one CPU, the processes ran each request slower (in wall
  // time) than they will alone, and V8 sized their young generations for that; the first blocks
  // alone then cost up to half as much again.
  for (const slot of plan.slots) {
    try {
      await live.get(slot)?.ask('warm-up');
    } catch (error) {
      errors[slot] = (error as Error).message;
      live.delete(slot);
    }
  }
  const kinds = (Object.entries(plan.blocks) as [BlockName, number][]).filter(([, n]) => n > 0);
  const stop = (slot: Slot, why: string): void => {
    errors[slot] = why;
    live.get(slot)?.kill();
    live.delete(slot);
  };
  for (let cycle = -plan.settleCycles; cycle < plan.cycles; cycle++) {
    for (const [k, [block, n]] of kinds.entries()) {
      const slots = plan.slots.filter((s) => live.has(s));
      for (const slot of rotate(slots, cycle + plan.settleCycles + k)) {
        const order: BlockOrder = { block, n };
        let result: PhaseResult;
        try {
          result = await live.get(slot)!.ask<PhaseResult>(order);
        } catch (error) {
          stop(slot, (error as Error).message);
          continue;
        }
        if (result.failures > 0)
          stop(slot, `${result.failures} of ${n} requests (${block}) did not end in 200`);
        else if (cycle >= 0) blocks.push({ block, cycle, slot, result });
      }
    }
  }
  await Promise.all([...live.values()].map((c) => c.end('stop')));
  return { client, blocks, errors, seconds: (performance.now() - started) / 1000 };
};
