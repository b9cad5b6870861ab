/**
 * The fleet experiment's loop: several processes, each a real `RetryPolicy` of the core, sending
 * GETs to one origin in virtual time, driven as the herd drives one (`run.admission()` before every
 * attempt, `run.next()` on every answer). A store shared between their policies answers through
 * promises (the port is asynchronous, as Redis is): after every event the loop lets every pending
 * answer in (one turn of the event loop, no virtual time passing), so a store call costs no
 * virtual time and the run is the same on every machine.
 */
import type { HeaderGetter, RetryPolicy } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';

/** The origin's answer. */
export interface FleetAnswer {
  readonly status: number;
  readonly headers: HeaderGetter;
}

/** One process: its policy and the GETs it sends. */
export interface FleetProcess {
  readonly policy: RetryPolicy;
  /** GETs it sends. */
  readonly requests: number;
  /** When it starts, in virtual ms. */
  readonly startMs: number;
  /** All at once (`true`), or one after another with `gapMs` between an end and the next start. */
  readonly concurrent: boolean;
  readonly gapMs: number;
}

/** An attempt that reached the origin. */
export interface FleetArrival {
  readonly process: number;
  readonly atMs: number;
  readonly status: number;
}

/** A request's end. */
export interface FleetEnd {
  readonly process: number;
  readonly atMs: number;
  /** The run's stop reason (`success`, `budget-exhausted`, `circuit-open`, …). */
  readonly reason: string;
  /** The last answer's status; `undefined` when the request ended before any was sent. */
  readonly status: number | undefined;
}

/** What a loop recorded, in time order. */
export interface FleetTrace {
  readonly arrivals: readonly FleetArrival[];
  readonly ends: readonly FleetEnd[];
}

const READY = 0;
const ARRIVE = 1;
const RESPOND = 2;
const REQUEST = Object.freeze({ method: 'GET', url: 'https://api.example/items' });

/** Lets every promise that is ready settle (the memory store's answers), at the same virtual time. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `processes` against `answer` (the origin, as a function of the arrival time), moving
 * `clock.now` (which every policy and the store read) from event to event.
 */
export const runFleetLoop = async (
  processes: readonly FleetProcess[],
  answer: (atMs: number, process: number) => FleetAnswer,
  delay: () => number,
  clock: { now: number },
): Promise<FleetTrace> => {
  const offsets: number[] = [];
  let total = 0;
  for (const p of processes) {
    offsets.push(total);
    total += p.requests;
  }
  const heap = new EventHeap(total);
  const owner = new Int32Array(total);
  const kind = new Uint8Array(total);
  const runs: (RetryRun | undefined)[] = new Array(total);
  const last: (FleetAnswer | undefined)[] = new Array(total);
  const nextOf = new Int32Array(processes.length);
  const arrivals: FleetArrival[] = [];
  const ends: FleetEnd[] = [];
  const start = (process: number, atMs: number): void => {
    const id = offsets[process]! + nextOf[process]!++;
    owner[id] = process;
    kind[id] = READY;
    runs[id] = processes[process]!.policy.begin(REQUEST);
    heap.push(id, atMs);
  };
  processes.forEach((p, i) => {
    for (let k = 0; k < (p.concurrent ? p.requests : Math.min(1, p.requests)); k++) start(i, p.startMs);
  });
  const end = (id: number, atMs: number, reason: string): void => {
    const process = owner[id]!;
    ends.push({ process, atMs, reason, status: last[id]?.status });
    heap.pop();
    const p = processes[process]!;
    if (!p.concurrent && nextOf[process]! < p.requests) start(process, atMs + p.gapMs);
  };
  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    clock.now = t;
    const run = runs[id]!;
    if (kind[id] === READY) {
      const turn = run.admission();
      if (turn && 'holdMs' in turn) {
        run.totalDelayMs += turn.holdMs;
        heap.replaceTop(t + turn.holdMs);
      } else if (turn) end(id, t, turn.refuse);
      else {
        kind[id] = ARRIVE;
        heap.replaceTop(t + delay());
      }
    } else if (kind[id] === ARRIVE) {
      const a = answer(t, owner[id]!);
      arrivals.push({ process: owner[id]!, atMs: t, status: a.status });
      last[id] = a;
      kind[id] = RESPOND;
      heap.replaceTop(t + delay());
    } else {
      const decision = await run.next(last[id]!);
      if (decision.retry) {
        kind[id] = READY;
        heap.replaceTop(t + decision.delayMs);
      } else end(id, t, decision.reason);
    }
    await settle();
  }
  return { arrivals, ends };
};
