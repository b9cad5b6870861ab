/**
 * The herd line, on by default: the retries a rate limit invited to one origin (429s retried at the
 * time the server gave) go back one after the other, at a pace the line learns, instead of all at
 * the time each was given, where they would meet the same limit again.
 *
 * A 429 retried at the server's time (`Retry-After`, a rate-limit reset) gives its request a ticket
 * in its origin's line, and holds the line until that time: nothing is released before the last
 * time a server gave. From then on the line releases its tickets in order, `START_PER_S` a second
 * at first and twice as fast every `FAST_MS`, as TCP's slow start probes a link. A released retry
 * that is refused again says the pace was too fast: the line goes on at what the server accepted of
 * it since its start (a second of it at least; never below `CUT_FLOOR` of the pace it had), and
 * from there doubles only every `SLOW_MS`. First attempts are never held, and a request that is not
 * in a line pays one check per attempt: nothing is read of an answer for the line but a retried
 * 429's.
 *
 * No timers: the schedule is a formula of the policy's clock (the tickets released by `t` are the
 * integral of the pace since the schedule's start), and a request in line waits for its ticket's
 * time, asking again when it comes (a cut or a later hold can only put it later). The line never
 * fails a request itself: a retry whose turn would come past its deadline, or more than
 * `retryAfter.maxMs` after its 429, goes when it asks.
 *
 * `pacer: createPacer()` replaces it (it holds every request to a paced origin, and learns from what
 * a server advertises); `herd: false` turns it off.
 */
import { askedDelay } from '../asked-delay.ts';
import type { RunView } from '../types.ts';
import type { RunFeature } from './feature.ts';
import { invited } from './invited.ts';

/** The pace a line starts at once its hold is over, in retries per second. */
const START_PER_S = 4;
/** How long the pace takes to double: before a released retry was refused, and after. */
const FAST_MS = 500;
const SLOW_MS = 4000;
/** A cut keeps at least this share of the pace it cuts. */
const CUT_FLOOR = 0.25;
/** Origins with a line; past that every line is forgotten (a client of many hosts). */
const MAX_LINES = 64;

/** One origin's line: tickets handed out, and the schedule that releases them. */
interface Line {
  issued: number;
  /** The schedule: `k0` tickets released at `start`, then `base` a ms, doubling every `period` ms. */
  k0: number;
  start: number;
  base: number;
  period: number;
  /** Nothing is released before this time (the latest a server gave). */
  hold: number;
  /** When the pace was last cut: a retry released before then tells of the pace before it. */
  cutAt: number;
  /** Retries released since `from` (the end of the hold after the last cut or start), and the last one's time. */
  sent: number;
  from: number;
  sentAt: number;
}

/** A request's place in line: its ticket, when it joined, and when it was released (once it was). */
interface Place {
  readonly line: Line;
  readonly ticket: number;
  readonly since: number;
  /**
   * The end of the last wait it was given (its retry's, then the line's): its own clock, should the
   * policy's not have moved meanwhile (an injected sleep that returns at once).
   */
  until: number;
  sentAt: number | undefined;
}

/** The pace of `line` at `t`, per ms. */
const rateAt = (l: Line, t: number): number => l.base * 2 ** (Math.max(0, t - l.start) / l.period);

/** The tickets `line` has released by `t`: the integral of its pace since its schedule's start. */
const releasedBy = (l: Line, t: number): number =>
  t <= l.start
    ? l.k0
    : Math.min(l.issued, l.k0 + ((l.base * l.period) / Math.LN2) * (2 ** ((t - l.start) / l.period) - 1));

/** The origin part of an absolute URL (`''` for a relative one: the page's origin). */
const originOf = (url: string): string => {
  const scheme = url.indexOf('://');
  const end = scheme < 0 ? 0 : url.indexOf('/', scheme + 3);
  return end < 0 ? url : url.slice(0, end);
};

/** Creates a policy's herd line (a policy with the defaults has its own). */
export const createHerdLine = (): RunFeature => {
  const lines = new Map<string, Line>();
  const places = new WeakMap<RunView, Place>();

  return {
    retriesOnly: true,
    admit(run) {
      if (lines.size === 0) return undefined;
      const place = places.get(run);
      if (!place || place.sentAt !== undefined) return undefined;
      const { line: l, ticket } = place;
      const o = run.options;
      const now = Math.max(o.now(), place.until);
      // When the schedule releases this ticket (the inverse of `releasedBy`), and never sooner after
      // the last one than the pace allows (turns that came while the process was busy go one by one).
      const ahead = ticket - l.k0;
      const holdMs = Math.max(
        (ahead > 0 ? l.start + l.period * Math.log2(1 + (ahead * Math.LN2) / (l.base * l.period)) : l.start) -
          now,
        l.sentAt + 1 / rateAt(l, now) - now,
      );
      if (
        holdMs > 0 &&
        now + holdMs - place.since <= (o.retryAfter ? o.retryAfter.maxMs : Number.POSITIVE_INFINITY) &&
        (o.deadlineMs === undefined || run.elapsedMs() + holdMs <= o.deadlineMs)
      ) {
        place.until = now + holdMs;
        return { holdMs };
      }
      place.sentAt = l.sentAt = now;
      l.sent++;
      return undefined;
    },

    review(run, outcome, decision) {
      const { responseHeaders, nowMs: now } = outcome;
      if (!invited(outcome, decision) || !responseHeaders) return decision;
      const key = originOf(run.url);
      let l = lines.get(key);
      if (!l) {
        if (lines.size >= MAX_LINES) lines.clear();
        l = {
          issued: 0,
          k0: 0,
          start: now,
          base: 0,
          period: 1,
          hold: now,
          cutAt: -1,
          sent: 0,
          from: 0,
          sentAt: -1,
        };
        lines.set(key, l);
      }
      const last = places.get(run);
      let base = rateAt(l, now);
      let { period } = l;
      const cut = last?.line === l && last.sentAt !== undefined && last.sentAt > l.cutAt;
      const drained = !cut && releasedBy(l, now) >= l.issued && now >= l.start;
      if (cut) {
        // A retry the line let go was refused again: the pace was too fast.
        base = Math.max((l.sent - 1) / Math.max(1000, now - l.from), base * CUT_FLOOR);
        period = SLOW_MS;
      } else if (drained) {
        // A new herd at a line that has drained: its pace was learned of another time.
        base = START_PER_S / 1000;
        period = FAST_MS;
      }
      // The schedule from now on: what was released stays released; nothing before the hold.
      l.k0 = releasedBy(l, now);
      l.hold = Math.max(l.hold, now + (askedDelay(responseHeaders, now)?.ms ?? 0));
      l.start = Math.max(now, l.hold);
      l.base = base;
      l.period = period;
      if (cut || drained) {
        l.cutAt = now;
        l.sent = 0;
        l.from = l.start;
      }
      places.set(run, {
        line: l,
        ticket: l.issued++,
        since: now,
        until: now + decision.delayMs,
        sentAt: undefined,
      });
      return decision;
    },
  };
};

/** The `herd` option, as the feature table's row puts it in the public options. */
export interface HerdOption {
  /**
   * The herd line: when a rate limit tells many requests to one origin to come back (429s retried
   * at the time the server gave), they go back one after the other at a pace the line learns (it
   * starts slowly after the server's time and doubles every half second; one it let go refused
   * again slows it to what the server accepted), not all at that time. First attempts are never
   * held. Default `true`; `false` retries each 429 at its own time. A pacer (`pacer:
   * createPacer()`) replaces it. A policy's option (the line is shared by its routes and calls).
   */
  readonly herd?: boolean;
}
