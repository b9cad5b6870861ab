/**
 * The fleet experiment's loop: several processes, each a real `RetryPolicy` of the core, sending
 * GETs to one origin in virtual time, driven as the herd drives one (each request's attempt sequence
 * told what happened, its steps done in virtual time). A store shared between their policies answers through
 * promises (the port is asynchronous, as Redis is): after every event the loop lets every pending
 * answer in (one turn of the event loop, no virtual time passing), so a store call costs no
 * virtual time and the run is the same on every machine.
 */
import type { HeaderGetter, RetryPolicy } from '@jitterbug/core';
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { ARRIVE, inVirtualTime, READY, RESPOND, START, type VirtualLoop } from './virtual-steps.ts';

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
    kind[id] = START;
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
  // Each request's attempt sequence says what to do (`steps.ts`): `send`, `hold` or `wait` (in
  // virtual time), `await` (a store's answer), `discard` (nothing to drop here), `deliver` or `fail`.
  const loop: VirtualLoop = { heap, kind, delay, end: (id, t) => end(id, t, runs[id]!.summary!.reason) };
  const act = async (id: number, t: number, first: Step): Promise<void> => {
    const run = runs[id]!;
    let step = first;
    for (;;) {
      if (step === 'await') {
        step = await Promise.resolve(run.pending).then(
          (value) => run.done(value),
          (error: unknown) => run.failed(error),
        );
      } else break;
    }
    inVirtualTime(loop, run, id, t, step, 'fleet');
  };
  while (heap.size > 0) {
    const id = heap.peek();
    const t = heap.peekTime();
    clock.now = t;
    const run = runs[id]!;
    if (kind[id] === START) await act(id, t, run.start(undefined, false));
    else if (kind[id] === READY) await act(id, t, run.done());
    else if (kind[id] === ARRIVE) {
      const a = answer(t, owner[id]!);
      arrivals.push({ process: owner[id]!, atMs: t, status: a.status });
      last[id] = a;
      kind[id] = RESPOND;
      heap.replaceTop(t + delay());
    } else {
      const step = run.answered(1, last[id]!.status);
      await act(id, t, step === 'result' ? run.done(last[id]!) : step);
    }
    await settle();
  }
  return { arrivals, ends };
};
