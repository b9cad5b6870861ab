/**
 * How the simulators' event loops (the herd's, the fleet's) do a step of a request's attempt
 * sequence (`steps.ts` in the core) in virtual time: a `send` goes out and arrives after the
 * network's delay, a `hold` or `wait` comes back after its `delayMs`, `deliver` and `fail` end the
 * request (its summary says how). A `discard` has nothing to drop there.
 */
import type { RetryRun, Step } from '@jitterbug/core/adapter';
import type { EventHeap } from './heap.ts';

/** What a request's next event is: its turn to be sent (after a hold or a wait), … */
export const READY = 0;
/** … its attempt reaching the server, … */
export const ARRIVE = 1;
/** … the server's answer reaching it, … */
export const RESPOND = 2;
/** … or its first step. */
export const START = 3;

/** An event loop's requests: their next events, by id, in time order. */
export interface VirtualLoop {
  readonly heap: EventHeap;
  /** Each request's next event's kind. */
  readonly kind: Uint8Array;
  /** The network's delay, one way. */
  delay(): number;
  /** Request `id` is over at `atMs`. */
  end(id: number, atMs: number): void;
}

/** Does `step` of request `id` (its run `run`, the heap's top at `t`); `who` names the loop in an error. */
export const inVirtualTime = (
  loop: VirtualLoop,
  run: RetryRun,
  id: number,
  t: number,
  step: Step,
  who: string,
): void => {
  const next = step === 'discard' ? run.done() : step;
  if (next === 'send') {
    loop.kind[id] = ARRIVE;
    loop.heap.replaceTop(t + loop.delay());
  } else if (next === 'hold' || next === 'wait') {
    loop.kind[id] = READY;
    loop.heap.replaceTop(t + run.delayMs);
  } else if (next === 'deliver' || next === 'fail') loop.end(id, t);
  else throw new Error(`${who}: the attempt sequence asked for '${next}'`);
};
