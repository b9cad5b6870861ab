/**
 * The long-tail experiment: hedged requests ("The Tail at Scale", Dean and Barroso 2013) against a
 * server whose service time has a rare slow mode, under increasing load.
 *
 * The server is a FIFO queue in front of a fixed number of workers, so a hedged copy takes a worker
 * like any request: hedges cost capacity, and past a point they cost more than they save. It does
 * not notice a client's cancellation (an HTTP server rarely does before it writes the response), so
 * every copy it receives is served: the worst case for hedging. Open-loop clients start requests as
 * a Poisson process at a share of the server's capacity (`load`).
 *
 * Every request is the attempt sequence of a real `RetryPolicy` with the core's `hedge` option,
 * driven in virtual time as the adapters drive it: its race (the core's `HedgeRace`) says when to
 * send the next copy (`hedge.delayFor`: a fixed delay, or the 95th percentile of the core's latency
 * window, once it holds 20 latencies), `hedge.start` takes a token from the core's hedge budget, the
 * first answer wins and feeds the window, and the run settles on it.
 */
import { createRetryBudget, type Hedging, seededRandom } from '@jitterbug/core';
import type { RetryRun, SequencePort, Step } from '@jitterbug/core/adapter';
import { EventHeap } from './heap.ts';
import { createLatency } from './normal.ts';
import { deriveSeed } from './seeds.ts';
import { createServiceTime, meanServiceMs, type ServiceTimeModel } from './service-time.ts';
import { percentileOfSorted } from './stats.ts';
import {
  TAIL_COPIES as COPIES,
  createTailPolicy,
  type ResolvedTailOptions,
  resolveTail,
  type TailOptions,
  type TailVariantName,
} from './tail-options.ts';

/** The server's capacity in requests per second: workers ÷ mean service time. */
export const tailCapacityPerSec = (workers: number, service: ServiceTimeModel): number =>
  (1000 * workers) / meanServiceMs(service);

/** What one run of one variant at one load measured. */
export interface TailRunResult {
  /** The hedging variant run. */
  readonly variant: TailVariantName;
  /** Offered load as a share of the capacity without hedging. */
  readonly load: number;
  /** Requests sent. */
  readonly requests: number;
  /** Copies sent, first ones included. */
  readonly copies: number;
  /** Hedges due (their delay passed with no answer yet), sent or not. */
  readonly wantedHedges: number;
  /** Of those, refused by the hedge budget. */
  readonly refusedHedges: number;
  /** Each request's latency, from its start to its first answer, in request order. */
  readonly latenciesMs: Float64Array;
  /** Worker time spent on all copies, in ms. */
  readonly workMs: number;
  /** When the last request was answered, in ms. */
  readonly endMs: number;
  /** When the server finished its last copy (losing copies are served to the end), in ms. */
  readonly serverEndMs: number;
}

/** A run as hedging sees it. */
type Run = Parameters<Hedging['start']>[0];

const HEDGE = 1;
const ARRIVE = 2;
const SERVED = 3;
const ANSWER = 4;
const REQUEST = Object.freeze({ method: 'GET', url: 'http://server.invalid/item' });
const OK = Object.freeze({ status: 200 });

/**
 * Simulates one run of one variant at one load. The requests (their arrival pattern and every
 * copy's service time) depend only on the seed: every variant faces the same requests, and a higher
 * load is the same requests closer together.
 */
export const simulateTail = (variant: TailVariantName, load: number, options: TailOptions): TailRunResult => {
  const o = resolveTail({ ...options, variants: [variant], loads: [load], runs: 1 });
  const n = o.requests;
  const ratePerMs = tailCapacityPerSec(o.workers, o.service) / 1000;
  const meanGapMs = 1 / (load * ratePerMs);
  const arrivalRandom = seededRandom(deriveSeed(o.seed, 'arrivals'));
  const serviceTime = createServiceTime(seededRandom(deriveSeed(o.seed, 'service')), o.service);
  // Copy k of request r is slot r·COPIES + k − 1; its service time is drawn up front, so that it
  // does not depend on the order in which the variant's events happen.
  const service = new Float64Array(n * COPIES);
  for (let i = 0; i < service.length; i++) service[i] = serviceTime();
  const network = createLatency(seededRandom(deriveSeed(o.seed, 'network')), o.latency);
  let clock = 0;
  const budgeted = variant.endsWith('+budget');
  const feedRequest = o.windowFeed === 'request';
  // A deeper hedge budget than the core's, when asked for: deposited per request, one token a hedge.
  const ownBudget =
    budgeted && o.hedgeBurst !== undefined
      ? createRetryBudget({ ratio: o.hedgeRatio, burst: o.hedgeBurst }, 'hedgeBurst')
      : undefined;
  // The copy whose answer is being told, for the 'winner' feed.
  let answering = 0;
  // The core's hedging, as the variant asks: a copy without the hedge budget whenever its delay has
  // passed, or within a deeper budget; the window fed the answering copy's own time for 'winner'.
  const asVariant = (core: Hedging): Hedging => {
    // The core's race calls these through `this` (`wrapSend`): the variant's own, where it has them.
    const hedging: Hedging = Object.create(core, {
      start: {
        value: (run: Run, copy: number): boolean => {
          wantedHedges++;
          const sent = !budgeted || (ownBudget ? ownBudget.tryWithdraw() : core.start(run, copy));
          if (!sent) refusedHedges++;
          return sent;
        },
      },
      answered: {
        value: (run: Run, copy: number, latencyMs: number | undefined): void =>
          core.answered(run, copy, feedRequest ? latencyMs : clock - sentAt[answering]!),
      },
    });
    return hedging;
  };
  const policy = createTailPolicy(
    variant,
    o,
    seededRandom(deriveSeed(o.seed, 'jitter')),
    () => clock,
    asVariant,
  );
  // The race's latencies are measured on the virtual clock.
  const port: SequencePort = { clock: () => clock };

  // Event ids: request r is r (its hedge timer); copy slot s is n + s.
  const heap = new EventHeap(n + n * COPIES);
  const kind = new Uint8Array(n + n * COPIES);
  const startedAt = new Float64Array(n);
  const sentAt = new Float64Array(n * COPIES);
  const copiesSent = new Uint8Array(n);
  const latencies = new Float64Array(n);
  const runs: (RetryRun | undefined)[] = new Array(n);
  // The server's FIFO queue: a ring over copy slots, as large as every copy at once.
  const queue = new Int32Array(n * COPIES);
  let head = 0;
  let queued = 0;
  let busy = 0;

  // Requests start in order, so their starts stay out of the heap: a cursor merges them in.
  let t = 0;
  for (let r = 0; r < n; r++) {
    t += -Math.log(1 - arrivalRandom()) * meanGapMs;
    startedAt[r] = t;
  }
  let nextStart = 0;

  let copies = 0;
  let wantedHedges = 0;
  let refusedHedges = 0;
  let workMs = 0;
  let endMs = 0;
  let serverEndMs = 0;
  const send = (r: number, now: number): void => {
    const slot = r * COPIES + copiesSent[r]!++;
    sentAt[slot] = now;
    kind[n + slot] = ARRIVE;
    heap.push(n + slot, now + network());
    copies++;
  };
  const serve = (slot: number, now: number): number => {
    kind[n + slot] = SERVED;
    workMs += service[slot]!;
    const end = now + service[slot]!;
    if (end > serverEndMs) serverEndMs = end;
    return end;
  };

  // The hedge delay's timer and each copy's send, as the request's attempt sequence asks for them.
  // `timer`: the request's hedge timer is the heap's top (it just fired).
  const act = (r: number, run: RetryRun, step: Step, now: number, timer: boolean): void => {
    if (step !== 'send' && step !== 'race') throw new Error(`tail: the attempt sequence asked for '${step}'`);
    // The timer first, then the copy (the order the heap took them in before the sequence drove it).
    const delay = run.hedgeMs;
    if (delay !== undefined) {
      kind[r] = HEDGE;
      if (timer) heap.replaceTop(now + delay);
      else heap.push(r, now + delay);
    } else if (timer) heap.pop();
    send(r, now);
  };

  const start = (r: number, now: number): void => {
    const run = policy.begin(REQUEST);
    runs[r] = run;
    ownBudget?.deposit();
    // No pacer and no throttle: the attempt goes at once, copy 1 with its hedge timer if any.
    act(r, run, run.start(port, false), now, false);
  };

  while (nextStart < n || heap.size > 0) {
    if (nextStart < n && (heap.size === 0 || startedAt[nextStart]! <= heap.peekTime())) {
      clock = startedAt[nextStart]!;
      start(nextStart++, clock);
      continue;
    }
    const id = heap.peek();
    const now = heap.peekTime();
    clock = now;
    switch (kind[id]) {
      case HEDGE: {
        const run = runs[id];
        // The timer of a request already answered: the engine clears it; here it lapses.
        if (run === undefined) {
          heap.pop();
          break;
        }
        // The race sends another copy when the hedge budget (the variant's) has a token.
        const step = run.due();
        if (step === 'send') act(id, run, step, now, true);
        else heap.pop();
        break;
      }
      case ARRIVE: {
        const slot = id - n;
        if (busy < o.workers) {
          busy++;
          heap.replaceTop(serve(slot, now));
        } else {
          queue[(head + queued++) % queue.length] = slot;
          heap.pop();
        }
        break;
      }
      case SERVED: {
        kind[id] = ANSWER;
        heap.replaceTop(now + network());
        // The worker takes the next copy in line, answered or not: the server cannot tell.
        if (queued > 0) {
          const next = queue[head]!;
          head = (head + 1) % queue.length;
          queued--;
          heap.push(n + next, serve(next, now));
        } else busy--;
        break;
      }
      default: {
        heap.pop();
        const slot = id - n;
        const r = Math.floor(slot / COPIES);
        const run = runs[r];
        if (run === undefined) break; // a losing copy's answer, discarded
        answering = slot;
        // The first answer wins: the race feeds the window, the run settles on the 200.
        let step = run.answered((slot % COPIES) + 1, 200);
        if (step === 'result') step = run.done(OK);
        if (step === 'won') step = run.proceed();
        if (step !== 'deliver') throw new Error(`tail: the attempt sequence asked for '${step}'`);
        runs[r] = undefined;
        latencies[r] = now - startedAt[r]!;
        endMs = now;
      }
    }
  }

  return {
    variant,
    load,
    requests: n,
    copies,
    wantedHedges,
    refusedHedges,
    latenciesMs: latencies,
    workMs,
    endMs,
    serverEndMs,
  };
};

/** One point of the sweep: a variant at a load, over all runs. */
export interface TailPoint {
  /** The hedging variant. */
  readonly variant: TailVariantName;
  /** Offered load as a share of the capacity without hedging. */
  readonly load: number;
  /** New requests per second. */
  readonly ratePerSec: number;
  /** Runs made. */
  readonly runs: number;
  /** Requests, over all runs. */
  readonly requests: number;
  /** Copies sent, first ones included, over all runs. */
  readonly copies: number;
  /** Hedges due, over all runs. */
  readonly wantedHedges: number;
  /** Of those, refused by the hedge budget. */
  readonly refusedHedges: number;
  /** (copies − requests) ÷ requests. */
  readonly extraLoad: number;
  /** Percentiles of the pooled latencies, in ms. */
  readonly p50Ms: number;
  /** The 99th percentile, in ms. */
  readonly p99Ms: number;
  /** The 99.9th percentile, in ms. */
  readonly p999Ms: number;
  /** The mean latency, in ms. */
  readonly meanMs: number;
  /** Worker time spent ÷ (workers × time until the server's last copy was done): 1 is a saturated server. */
  readonly utilisation: number;
}

/** The result of {@link runTail}. */
export interface TailResult {
  /** The base seed. */
  readonly seed: number;
  /** The settings the runs used, every default filled in. */
  readonly settings: Omit<ResolvedTailOptions, 'seed'> & {
    /** Requests per second the workers serve without hedging. */
    readonly capacityPerSec: number;
    /** The mean time the server works on one copy, in ms. */
    readonly meanServiceMs: number;
  };
  /** One per variant and load. */
  readonly points: readonly TailPoint[];
}

/**
 * Runs the tail experiment: every variant at every load, `runs` times each; run `r` has the same
 * requests for every variant and load.
 *
 * @example
 * ```ts
 * const { points } = runTail({ seed: 1, loads: [0.5], requests: 10_000 });
 * for (const p of points) console.log(p.variant, p.p99Ms, p.extraLoad);
 * ```
 */
export const runTail = (options: TailOptions): TailResult => {
  const o = resolveTail(options);
  const capacityPerSec = tailCapacityPerSec(o.workers, o.service);
  const total = o.variants.length * o.loads.length * o.runs;
  let done = 0;
  const points: TailPoint[] = [];
  const pooled = new Float64Array(o.requests * o.runs);
  for (const variant of o.variants) {
    for (const load of o.loads) {
      let copies = 0;
      let wantedHedges = 0;
      let refusedHedges = 0;
      let utilisation = 0;
      let sum = 0;
      for (let r = 0; r < o.runs; r++) {
        const run = simulateTail(variant, load, { ...o, seed: deriveSeed(o.seed, r) });
        pooled.set(run.latenciesMs, r * o.requests);
        copies += run.copies;
        wantedHedges += run.wantedHedges;
        refusedHedges += run.refusedHedges;
        utilisation += run.workMs / (o.workers * run.serverEndMs) / o.runs;
        for (const ms of run.latenciesMs) sum += ms;
        options.onProgress?.(++done, total);
      }
      pooled.sort();
      const requests = o.requests * o.runs;
      points.push({
        variant,
        load,
        ratePerSec: load * capacityPerSec,
        runs: o.runs,
        requests,
        copies,
        wantedHedges,
        refusedHedges,
        extraLoad: (copies - requests) / requests,
        p50Ms: percentileOfSorted(pooled, 50),
        p99Ms: percentileOfSorted(pooled, 99),
        p999Ms: percentileOfSorted(pooled, 99.9),
        meanMs: sum / requests,
        utilisation,
      });
    }
  }
  const { seed, ...settings } = o;
  return {
    seed,
    settings: { ...settings, capacityPerSec, meanServiceMs: meanServiceMs(o.service) },
    points,
  };
};
