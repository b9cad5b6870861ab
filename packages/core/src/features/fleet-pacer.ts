/**
 * The fleet's pacer: the pace a process learned, and the holds a server gave, are every process's,
 * so that a process that starts after another met a rate limit paces from its first request. It is
 * the local pacer (`pacer.ts`) with the fleet's GCRA (`store/gcra.ts`, redis-cell's formula on the
 * store's clock) in front of it.
 *
 * - The first request to an origin reads the fleet's pace (`gcra.take` of nothing) and waits for
 *   the answer, a few ms at most; later requests to an origin nothing paces go as the local pacer
 *   says, and re-read the pace in the background once a second.
 * - Once the origin is paced (a learned interval, a hold), each attempt books its slot in the
 *   fleet's schedule (`gcra.take` of one, within `retryAfter.maxMs`) and waits for it: one line
 *   for the fleet, not one per process. A slot that would be later than that fails the request
 *   with a `PacerError`, as the local pacer's wait would.
 * - A 429 tells the fleet (`gcra.limit`, in the background): its `Retry-After` holds the origin for
 *   every process, and the interval becomes the local pacer's learned one (the first time) or the
 *   fleet's a tenth slower (once a second at most: a burst of 429s is one signal).
 * - The first 429 comes back while the rest of its burst is still in flight: the interval learned
 *   then counts only the answers that were in. Until its hold ends each answer the origin accepted
 *   is counted in and the interval, over the same span, told to the fleet again: measured at the
 *   first 429 alone, four 200s of ten made the fleet pace at 250 ms against a limit of 100 ms, and
 *   nothing but a 429 ever changes the fleet's interval.
 *
 * Every time in the store is the store's, and every answer a duration: a host's clock that is off
 * changes nothing. When the store fails, the process paces alone for `FALLBACK_MS` with the local
 * pacer, which has learned from every answer meanwhile.
 */
import { askedDelay } from '../asked-delay.ts';
import { checkFields, fail, numberCheck } from '../option-error.ts';
import { limitPace, type PaceLimit, takePace } from '../store/gcra.ts';
import type { SharedStore } from '../store/port.ts';
import type { RunView, Turn } from '../types.ts';
import { branded } from './feature.ts';
import { originOf } from './origin.ts';
import { createPacer as createLocalPacer, type Pacer, PacerError } from './pacer.ts';

/** Options of the fleet's {@link createPacer}. */
export interface FleetPacerOptions {
  /** The store the fleet shares (`redisStore(url)`, a Durable Object's, `createMemoryStore()`). */
  readonly store: SharedStore;
  /** Requests the fleet may send back to back beyond its pace. Default 0. */
  readonly burst?: number;
  /** How long the fleet remembers a learned pace, in ms. Default 60 000. */
  readonly rememberMs?: number;
}

/**
 * The longest an attempt waits for the store's answer, in ms: a backstop for a store that does not
 * time out its own calls (`redisStore` and the Durable Object's answer within their `timeoutMs`).
 */
const ANSWER_MS = 1000;
/** After the store failed, the process paces alone for this long, in ms. */
const FALLBACK_MS = 1000;
/** An origin's pace is read again in the background after this long, in ms. */
const REFRESH_MS = 1000;
/** A 429 on a paced origin slows the fleet's pace by this factor, once per `REFRESH_MS` at most. */
const SLOWER = 1 / 0.9;

/** What a process knows of the fleet's pace of one origin (local times). */
interface FleetOrigin {
  readAt: number;
  reading: Promise<void> | undefined;
  /** No read has answered yet. */
  first: boolean;
  intervalMs: number;
  heldUntil: number;
  slowedAt: number;
  /** This process's first answer from the origin, and the answers it accepted since. */
  firstAnswerAt: number;
  accepted: number;
  /** The first 429's measure takes in the answers that come until then (its hold's end), over this span. */
  measureUntil: number;
  measureSpanMs: number;
}

/** An attempt's slot: asked for (`goAt` undefined), booked, or refused (`refusedMs`). */
interface Slot {
  readonly since: number;
  goAt: number | undefined;
  refusedMs: number | undefined;
}

const FIELDS = {
  store: (v: unknown, n: string) =>
    typeof v === 'object' && v !== null && typeof (v as SharedStore).run === 'function'
      ? v
      : fail(n, 'a SharedStore (redisStore(url), createMemoryStore(), …)', v),
  burst: numberCheck(0, 1e6, true),
  rememberMs: numberCheck(1, 30 * 24 * 3600 * 1000),
};

/**
 * Creates the fleet's pacer over `store`: `pacer: createPacer({ store })`, in every process.
 *
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createPacer = (options: FleetPacerOptions, optionPath = 'pacer'): Pacer => {
  const { store, burst, rememberMs } = checkFields(
    options,
    optionPath,
    { store: undefined, burst: 0, rememberMs: 60_000 },
    FIELDS,
  ) as Required<FleetPacerOptions>;
  const local = createLocalPacer();
  const origins = new Map<string, FleetOrigin>();
  const slots = new WeakMap<RunView, Slot>();
  let aloneUntil = Number.NEGATIVE_INFINITY;

  const stateOf = (origin: string): FleetOrigin => {
    let f = origins.get(origin);
    if (!f) {
      if (origins.size >= 1000) origins.delete(origins.keys().next().value as string);
      f = {
        readAt: Number.NEGATIVE_INFINITY,
        reading: undefined,
        first: true,
        intervalMs: 0,
        heldUntil: Number.NEGATIVE_INFINITY,
        slowedAt: Number.NEGATIVE_INFINITY,
        firstAnswerAt: Number.NEGATIVE_INFINITY,
        accepted: 0,
        measureUntil: Number.NEGATIVE_INFINITY,
        measureSpanMs: 0,
      };
      origins.set(origin, f);
    }
    return f;
  };

  const storeFailed = (now: () => number): void => {
    aloneUntil = now() + FALLBACK_MS;
  };

  const read = (origin: string, f: FleetOrigin, now: () => number): void => {
    f.readAt = now();
    f.reading = takePace(store, origin, { quantity: 0, intervalMs: 0, burst, maxWaitMs: 0 }).then((reply) => {
      f.reading = undefined;
      f.first = false;
      if (!reply.ok) return storeFailed(now);
      f.intervalMs = reply.value.intervalMs;
      f.heldUntil = now() + Math.max(0, reply.value.waitMs);
    });
  };

  const book = (run: RunView, origin: string, f: FleetOrigin, now: () => number): Slot => {
    const slot: Slot = { since: now(), goAt: undefined, refusedMs: undefined };
    const o = run.options;
    const maxWaitMs = o.retryAfter ? o.retryAfter.maxMs : 3_600_000;
    void takePace(store, origin, { quantity: 1, intervalMs: 0, burst, maxWaitMs }).then((reply) => {
      if (!reply.ok) {
        storeFailed(now);
        slot.goAt = slot.since;
        return;
      }
      f.intervalMs = reply.value.intervalMs;
      if (reply.value.allowed) slot.goAt = now() + reply.value.waitMs;
      else slot.refusedMs = reply.value.waitMs < 0 ? Number.POSITIVE_INFINITY : reply.value.waitMs;
    });
    slots.set(run, slot);
    return slot;
  };

  const publish = (origin: string, f: FleetOrigin, limit: PaceLimit, now: () => number): void => {
    void limitPace(store, origin, limit).then((reply) => {
      if (!reply.ok) return storeFailed(now);
      f.intervalMs = reply.value.intervalMs;
    });
  };

  /** An answer the origin accepted: while the first 429's measure is open, a faster interval for the fleet. */
  const accepted = (origin: string, f: FleetOrigin, t: number, now: () => number): void => {
    f.accepted++;
    if (!(t < f.measureUntil)) return;
    const intervalMs = f.measureSpanMs / f.accepted;
    if (!(intervalMs < f.intervalMs)) return;
    f.intervalMs = intervalMs;
    publish(origin, f, { holdMs: 0, intervalMs, burst, rememberMs }, now);
  };

  const pacer: Pacer = {
    rateOf: (origin, nowMs) => {
      const f = origins.get(origin);
      const fleet = f && f.intervalMs > 0 ? 1000 / f.intervalMs : Number.POSITIVE_INFINITY;
      return Math.min(fleet, local.rateOf(origin, nowMs));
    },

    admit(run): Turn | undefined {
      const now = run.options.now;
      const t = now();
      if (t < aloneUntil) return local.admit!(run);
      const origin = originOf(run.url);
      const f = stateOf(origin);
      const paced = f.intervalMs > 0 || f.heldUntil > t;
      if (f.readAt === Number.NEGATIVE_INFINITY || (!paced && !f.reading && t - f.readAt >= REFRESH_MS))
        read(origin, f, now);
      // The first read is waited for: a process that starts after another met the limit paces
      // from its first request. A refresh runs behind the requests.
      if (f.first && f.reading && t - f.readAt < ANSWER_MS) return { holdMs: 1 };
      if (!(f.intervalMs > 0 || f.heldUntil > t) && !slots.has(run)) return local.admit!(run);
      const slot = slots.get(run) ?? book(run, origin, f, now);
      if (slot.refusedMs !== undefined) {
        slots.delete(run);
        const turn: Turn = {
          refuse: 'retry-after-too-long',
          error: new PacerError(origin, slot.refusedMs),
          refusedDelayMs: slot.refusedMs,
        };
        return turn;
      }
      if (slot.goAt === undefined) {
        if (t - slot.since < ANSWER_MS) return { holdMs: 1 };
        storeFailed(now);
        slots.delete(run);
        return local.admit!(run);
      }
      if (slot.goAt > t) return { holdMs: slot.goAt - t };
      slots.delete(run);
      return undefined;
    },

    observe(run, outcome) {
      local.observe!(run, outcome);
      const { status, responseHeaders, nowMs } = outcome;
      const o = run.options;
      if (status === undefined || !o.retryAfter) return;
      const origin = originOf(run.url);
      const f = stateOf(origin);
      const t = o.now();
      if (f.firstAnswerAt === Number.NEGATIVE_INFINITY) f.firstAnswerAt = t;
      if (status !== 429) {
        if (status !== 503) accepted(origin, f, t, o.now);
        return;
      }
      const hold = responseHeaders ? askedDelay(responseHeaders, nowMs) : undefined;
      const holdMs = hold ? hold.ms : 0;
      let intervalMs = 0;
      if (f.intervalMs === 0) {
        const rate = local.rateOf(origin, nowMs);
        if (Number.isFinite(rate) && rate > 0) intervalMs = 1000 / rate;
        // The span the local pacer measures over (its `learnFrom429`), for the answers still to come.
        f.measureSpanMs = Math.max(1000, t - f.firstAnswerAt);
        f.measureUntil = t + Math.max(holdMs, REFRESH_MS);
      } else if (t - f.slowedAt >= REFRESH_MS) {
        intervalMs = f.intervalMs * SLOWER;
      }
      if (intervalMs > 0) {
        f.slowedAt = t;
        f.intervalMs = intervalMs;
      }
      if (holdMs > 0) f.heldUntil = Math.max(f.heldUntil, t + holdMs);
      if (holdMs === 0 && intervalMs === 0) return;
      publish(origin, f, { holdMs, intervalMs, burst, rememberMs }, o.now);
    },

    review: (run, outcome, decision) => local.review!(run, outcome, decision),

    finish(run, summary) {
      slots.delete(run);
      local.finish!(run, summary);
    },
  };
  return branded(pacer, 'pacer');
};
