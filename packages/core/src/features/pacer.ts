/**
 * An origin-wide pacer: it learns the rate a server accepts and sends the policy's requests to that
 * origin no faster, in the order they came, so that a rate limit is met by waiting in line rather
 * than by bouncing off it again and again.
 *
 * What it learns from:
 * - **what the server advertises** before it refuses anything: `RateLimit` / `RateLimit-Policy`
 *   (the IETF draft) or `X-RateLimit-Remaining` / `X-RateLimit-Reset` on any answer. The remaining
 *   quota, less the attempts still in flight (the server may not have counted them), is spread over
 *   the time left in its window; a spent quota holds the origin until it resets. No more attempts
 *   go unanswered than an answer said remained: late ones may all land in one window.
 * - **a 429**: its `Retry-After` (or rate-limit reset) holds the origin until then — "not before T"
 *   for every request, the one that got it taking its place in line as it comes back —, and the
 *   pace becomes what the server accepted since the previous 429, a little below it; from there it
 *   grows again along a cubic curve, slowly near that pace and faster away from it (CUBIC, as the
 *   AWS SDK's adaptive retry mode grows its rate; that mode measures what it sent, this measures
 *   what the server accepted, and it ignores `Retry-After`).
 * - **a 503 while the origin accepts nothing** (no other answer for a second): the origin is
 *   unavailable, not rate-limiting. Requests then fail at once with a {@link PacerError} and nothing
 *   sent, but one every `PROBE_MS`, as a circuit breaker's half-open state sends one; the first other
 *   answer ends it. A 503's `Retry-After` holds only the request that got it: holding the origin for
 *   it would keep every client away that long after the service is back (5 s in the storm
 *   simulator's outage, where the aim is a second).
 *
 * A request whose wait is longer than `retryAfter.maxMs` (known ahead when the server's hold alone
 * is, otherwise once it has waited that long) or ends past its deadline fails with a
 * {@link PacerError}, as a retry's wait would. No timers: the line is a count of tickets and a
 * release schedule per origin, advanced by the injected clock; a request waiting a long time is told
 * to wait half of what is left and asks again, so that a rate that grew meanwhile lets it go sooner.
 */
import { askedDelay } from '../asked-delay.ts';
import type { StopDecision } from '../decide.ts';
import type { StopReason } from '../events.ts';
import { noOptions } from '../option-error.ts';
import { advertisedQuota } from '../rate-limit-fields.ts';
import type { RunView, Turn } from '../types.ts';
import { branded, isFeature, type RunFeature } from './feature.ts';
import { originOf } from './origin.ts';

/** The pacer of a policy (or of several, shared like a retry budget): a feature of the run. */
export interface Pacer extends RunFeature {
  /** The pace in force for `origin` at `nowMs`, in requests per second (`Infinity`: not paced). */
  rateOf(origin: string, nowMs: number): number;
}

/**
 * The error a request fails with, before anything is sent, when the pacer will not send it: its
 * wait in line would be longer than `retryAfter.maxMs` or end past its deadline, or the origin is
 * unavailable (it answers every request with 503) and this request is not the one that probes it.
 */
export class PacerError extends Error {
  /** Always `ERR_JITTERBUG_PACER`. */
  readonly code = 'ERR_JITTERBUG_PACER';
  /** The origin. */
  readonly origin: string;
  /** How long the request would have had to wait, in ms (`undefined` when the origin is unavailable). */
  readonly waitMs: number | undefined;
  constructor(origin: string, waitMs: number | undefined) {
    super(
      waitMs === undefined
        ? `jitterbug: ${origin} answers every request with 503; one request is sent every ${PROBE_MS} ms until it is back, this one was not`
        : `jitterbug: ${origin} is paced; this request would have waited ${Math.ceil(waitMs)} ms`,
    );
    this.name = 'PacerError';
    this.origin = origin;
    this.waitMs = waitMs;
  }
}

/** Attempts sent are counted in buckets of this many ms, three of them. */
const BUCKET_MS = 500;
const BUCKETS = 3;
/** The share of the measured accept rate the pace starts from after a 429. */
const BETA = 0.9;
/**
 * CUBIC's scale, relative to the rate at the 429, per second³: back to that rate 1.7 s after it,
 * 1.5 times it 4.6 s after, twice 5.4 s after. (The AWS SDK's C of 0.4 requests per second³ is
 * absolute: the same curve at 20 requests a second, and slow at hundreds.)
 */
const CUBIC_C = 0.02;
const CUBIC_K = Math.cbrt((1 - BETA) / CUBIC_C);
/** The slowest pace, in requests per ms: one a second. */
const MIN_RATE = 1 / 1000;
/** While an origin is unavailable, one request goes every this many ms; unavailable after a second of 503s. */
const PROBE_MS = 500;
const UNAVAILABLE_AFTER_MS = 1000;
/** The shortest and the longest wait a request in line is told before it asks again, in ms. */
const MIN_STEP_MS = 50;
const MAX_STEP_MS = 1000;
/** Origins remembered; past that the oldest is forgotten (a client of many hosts). */
const MAX_ORIGINS = 1000;

/** What the pacer knows of one origin. */
interface Origin {
  /** The line: tickets handed out so far (ticket k is the k-th request in line), and those still waiting. */
  issued: number;
  waiting: number;
  /** Tickets the schedule had released at `since` (at most `issued`: no credit banked). */
  released: number;
  since: number;
  /** Nothing is released before this time (a `Retry-After`, a spent quota). */
  notBefore: number;
  /** Attempts sent, per bucket of `BUCKET_MS`, and the current bucket. */
  sends: Float64Array;
  bucket: number;
  firstAnswerAt: number;
  lastAcceptAt: number;
  /** The last 429 that set the pace (`-Infinity`: none yet, the origin is not paced by one). */
  limitedAt: number;
  /** Answers accepted since then. */
  acceptedSince: number;
  /** What the server accepted between the last two 429s, per ms: where the pace starts again. */
  wMax: number;
  /** When the pace starts to grow again (the end of the 429's hold). */
  growFrom: number;
  /** Whether the pace is still doubling: after the first 429, whose measure is rough, until the next. */
  slowStart: boolean;
  /** The curve's unit of time, in ms: a second, or the server's hold if longer (a probe costs that). */
  unitMs: number;
  /** What the server advertised: a pace (per ms) until `quotaUntil`, and its policy's after that. */
  quotaRate: number;
  quotaUntil: number;
  policyRate: number;
  /** Unavailable: only a probe goes, at `nextProbeAt` or later. */
  down: boolean;
  nextProbeAt: number;
  /** Attempts sent while the origin was paced and not answered yet (each has its `sentAt`). */
  inFlight: number;
  /** What the latest answer said remained of its window (0: none said): no more than that go unanswered. */
  mostLeft: number;
}

/** A request's place in line, and what it was told so far. */
interface Place {
  readonly ticket: number;
  /** When it first waited (for `retryAfter.maxMs`). */
  readonly since: number;
  /** The end of the wait it was last told: its clock, should the policy's not have moved. */
  heldUntil: number;
}

/** Moves the buckets on to `t`, emptying those that fell out of the window. */
const advance = (s: Origin, t: number): void => {
  const b = Math.floor(t / BUCKET_MS);
  if (!(b > s.bucket)) return;
  for (let i = s.bucket + 1; i <= Math.min(b, s.bucket + BUCKETS); i++) s.sends[i % BUCKETS] = 0;
  s.bucket = b;
};

/** Attempts sent per ms over the last second or so: the current bucket and the two before it. */
const sendRate = (s: Origin, t: number): number => {
  let sum = 0;
  for (const n of s.sends) sum += n;
  return sum / ((BUCKETS - 1) * BUCKET_MS + Math.max(0, t - s.bucket * BUCKET_MS));
};

/**
 * The pace, per ms, at `t`: after a 429 the cubic curve, never above twice what was sent in the last
 * second (a pace that grew while little was asked of it does not release a crowd at once, as the
 * AWS SDK caps it); within what the server advertised.
 */
const rateAt = (s: Origin, t: number): number => {
  let learned = Infinity;
  if (s.limitedAt !== Number.NEGATIVE_INFINITY) {
    const after = Math.max(0, t - s.growFrom) / s.unitMs;
    const x = after - CUBIC_K;
    const curve = s.slowStart ? s.wMax * 4 ** after : s.wMax * (1 + CUBIC_C * x * x * x);
    learned = Math.max(MIN_RATE, Math.min(curve, Math.max(s.wMax, 2 * sendRate(s, t))));
  }
  return Math.min(learned, t < s.quotaUntil ? s.quotaRate : s.policyRate);
};

/** Tickets released by `t` (growing at the pace from `since`, not before `notBefore`, at most `issued`). */
const releasedAt = (s: Origin, t: number): number => {
  const from = Math.max(s.since, s.notBefore);
  if (t <= from) return s.released;
  const rate = rateAt(s, t);
  return rate === Infinity ? s.issued : Math.min(s.issued, s.released + rate * (t - from));
};

/** Whether anything paces the origin at `t`: a 429 once, an advertised quota, a hold. */
const paced = (s: Origin, t: number): boolean =>
  s.limitedAt !== Number.NEGATIVE_INFINITY ||
  s.notBefore > t ||
  s.quotaUntil > t ||
  s.policyRate !== Infinity;

/** Fixes the schedule at `t`, before what it depends on changes. */
const rebase = (s: Origin, t: number): void => {
  if (!(t > s.since)) return;
  s.released = releasedAt(s, t);
  s.since = t;
};

/**
 * The schedule starts again from the requests still waiting: those it had released but that have not
 * asked again yet (a long wait is told in halves) are spread out again, not sent at once.
 */
const respread = (s: Origin): void => {
  s.released = Math.min(s.released, s.issued - s.waiting);
};

/** When ticket `k` is released (the schedule as it stands at `s.since`). */
const dueOf = (s: Origin, k: number): number => {
  const from = Math.max(s.since, s.notBefore);
  if (k < s.released + 1e-9) return from;
  const rate = rateAt(s, from);
  return rate === Infinity ? from : from + (k - s.released) / rate;
};

/**
 * A 429 (or a spent quota with no policy to pace by): the pace starts again, once the server's hold is
 * over, from what the server accepted since the previous 429 (holds included, so at most the rate it
 * can sustain), a little below it, and grows along the cubic curve. After the first 429 that measure
 * is rough (a burst, a second at most), so the pace doubles every half second (half the hold, if that
 * is longer) until the next.
 */
const learnFrom429 = (s: Origin, nowMs: number): void => {
  const first = s.limitedAt === Number.NEGATIVE_INFINITY;
  const span = Math.max(1000, nowMs - (first ? s.firstAnswerAt : s.growFrom));
  s.wMax = Math.max(MIN_RATE, s.acceptedSince / span);
  s.slowStart = first;
  s.limitedAt = nowMs;
  s.acceptedSince = 0;
  s.growFrom = Math.max(nowMs, s.notBefore);
  s.unitMs = Math.max(1000, s.growFrom - nowMs);
  respread(s);
};

const UNAVAILABLE: StopDecision = Object.freeze({ retry: false, reason: 'origin-unavailable', gaveUp: true });

/** Creates the pacer of a policy: `pacer: createPacer()`. Give one to several policies to share it. */
export const createPacer = (...none: never[]): Pacer => {
  noOptions('createPacer', none);
  const origins = new Map<string, Origin>();
  // Per request: its place while it waits, and when its attempt in flight to a paced origin was sent.
  const places = new WeakMap<RunView, Place>();
  const sentAt = new WeakMap<RunView, number>();

  const originState = (origin: string, nowMs: number): Origin => {
    let s = origins.get(origin);
    if (!s) {
      if (origins.size >= MAX_ORIGINS) origins.delete(origins.keys().next().value as string);
      s = {
        issued: 0,
        waiting: 0,
        released: 0,
        since: nowMs,
        notBefore: Number.NEGATIVE_INFINITY,
        sends: new Float64Array(BUCKETS),
        bucket: Math.floor(nowMs / BUCKET_MS),
        firstAnswerAt: nowMs,
        lastAcceptAt: Number.NEGATIVE_INFINITY,
        limitedAt: Number.NEGATIVE_INFINITY,
        acceptedSince: 0,
        wMax: 0,
        growFrom: 0,
        slowStart: true,
        unitMs: 1000,
        quotaRate: Infinity,
        quotaUntil: Number.NEGATIVE_INFINITY,
        policyRate: Infinity,
        down: false,
        nextProbeAt: Number.NEGATIVE_INFINITY,
        inFlight: 0,
        mostLeft: 0,
      };
      origins.set(origin, s);
    }
    return s;
  };

  const join = (run: RunView, s: Origin, place: Place): void => {
    if (!places.has(run)) s.waiting++;
    places.set(run, place);
  };
  const leave = (run: RunView, s: Origin): void => {
    if (s.waiting > 0 && places.delete(run)) s.waiting--;
  };
  // What a send costs an origin nothing paces: a count (no per-request record).
  const sent = (run: RunView, s: Origin, nowMs: number): undefined => {
    leave(run, s);
    if (paced(s, nowMs) && !sentAt.has(run)) {
      sentAt.set(run, nowMs);
      s.inFlight++;
    }
    advance(s, nowMs);
    s.sends[s.bucket % BUCKETS]!++;
    return undefined;
  };
  /** The attempt of `run` in flight, if one was counted: when it was sent (it is no longer in flight). */
  const landed = (run: RunView, s: Origin | undefined): number | undefined => {
    const at = sentAt.get(run);
    if (at !== undefined && s && sentAt.delete(run) && s.inFlight > 0) s.inFlight--;
    return at;
  };
  /** A refusal: a wait that was too long (`waitMs`), or an unavailable origin. */
  const refusal = (run: RunView, s: Origin, origin: string, reason: StopReason, waitMs?: number): Turn => {
    leave(run, s);
    return { refuse: reason, error: new PacerError(origin, waitMs), refusedDelayMs: waitMs };
  };

  /** The turn of a request with a place in line: go, wait (half of what is left), or give up. */
  const inLine = (run: RunView, origin: string, s: Origin, place: Place, nowMs: number): Turn | undefined => {
    const o = run.options;
    // The request's own clock: a policy's clock that did not move while it waited is not believed.
    const now = Math.max(nowMs, place.heldUntil);
    const due = dueOf(s, place.ticket);
    // What is known ahead is the server's hold; a wait in line at a pace that may still grow is
    // known when it has lasted: either longer than retryAfter.maxMs fails the request (or, with
    // `whenLonger: 'cap'`, lets it go then), as a retry's wait would.
    const limit = place.since + (o.retryAfter ? o.retryAfter.maxMs : Infinity);
    let goAt = due;
    if (s.notBefore > limit || (due > limit && now >= limit)) {
      const cap = o.retryAfter ? o.retryAfter.whenLonger === 'cap' : false;
      if (!cap)
        return refusal(run, s, origin, 'retry-after-too-long', Math.max(due, s.notBefore) - place.since);
      goAt = limit;
    }
    const known = Math.max(now, Math.min(goAt, s.notBefore));
    if (o.deadlineMs !== undefined && !(run.elapsedMs() + (known - now) <= o.deadlineMs))
      return refusal(run, s, origin, 'deadline', goAt - now);
    // As many unanswered as a window's quota may land in one window (a slow client, a slow network):
    // one more waits for an answer, whatever the pace says.
    if (goAt <= now && !(s.mostLeft > 0 && s.inFlight >= s.mostLeft)) return sent(run, s, nowMs);
    if (goAt <= now) goAt = now + MIN_STEP_MS;
    // Half of what is left, at most a second (a pace that grows lets it go sooner), and at least the
    // server's hold.
    const left = goAt - now;
    const holdMs = Math.min(left, Math.max(MIN_STEP_MS, Math.min(left / 2, MAX_STEP_MS), s.notBefore - now));
    place.heldUntil = now + holdMs;
    join(run, s, place);
    return { holdMs };
  };

  const pacer: Pacer = {
    rateOf(origin, nowMs) {
      const s = origins.get(origin);
      if (!s) return Infinity;
      advance(s, nowMs);
      return rateAt(s, nowMs) * 1000;
    },

    admit(run) {
      if (origins.size === 0) return undefined;
      const origin = originOf(run.url);
      const s = origins.get(origin);
      if (!s) return undefined;
      const nowMs = run.options.now();
      if (s.down) {
        if (nowMs < s.nextProbeAt) return refusal(run, s, origin, 'origin-unavailable');
        s.nextProbeAt = nowMs + PROBE_MS;
        return sent(run, s, nowMs);
      }
      // An origin nothing has paced yet: the attempt goes, counted.
      if (s.waiting === 0 && !paced(s, nowMs)) return sent(run, s, nowMs);
      advance(s, nowMs);
      rebase(s, nowMs);
      const place = places.get(run);
      if (place) return inLine(run, origin, s, place, nowMs);
      // A new request takes the next ticket; one refused at once gives it back.
      const ticket = s.issued++;
      const turn = inLine(run, origin, s, { ticket, since: nowMs, heldUntil: nowMs }, nowMs);
      if (turn && 'refuse' in turn && s.issued === ticket + 1) s.issued = ticket;
      return turn;
    },

    observe(run, { status, responseHeaders: headers, nowMs }) {
      const origin = originOf(run.url);
      const sentWhen = landed(run, origins.get(origin));
      if (status === undefined) return;
      const s = originState(origin, nowMs);
      advance(s, nowMs);
      rebase(s, nowMs);
      if (status !== 429 && status !== 503) {
        s.acceptedSince++;
        s.lastAcceptAt = nowMs;
      }
      if (status !== 503) s.down = false;
      const o = run.options;
      // A 429's hold is the retry's wait, read as the decision reads it: a `Retry-After` beside a
      // spent quota is the time the server asked for (the rate-limit draft: it takes precedence).
      const asked = status === 429 && o.retryAfter && headers ? askedDelay(headers, nowMs) : undefined;
      const quota = headers && advertisedQuota(headers, nowMs);
      if (quota) {
        s.policyRate = quota.policyRate;
        if (quota.rate > 0) {
          // What the server had left when it answered, less the attempts it may not have counted yet:
          // those still in flight (late on a slow client or network, they would reach it in the same
          // window as the ones this answer lets go). Spent by them, nothing goes until an answer
          // tells of more or the window resets: a pace, not a hold, that the next answer may raise.
          const pending = quota.forMs === Infinity ? 0 : s.inFlight / quota.forMs;
          // What the latest answer said remained: a server that lowers its quota is followed.
          if (quota.forMs !== Infinity) s.mostLeft = Math.round(quota.rate * quota.forMs);
          s.quotaRate = Math.max(0, quota.rate - pending);
          s.quotaUntil = nowMs + quota.forMs;
        } else if (o.retryAfter) {
          // A spent quota: nothing until it resets, then its policy's pace (or one learned as from a 429).
          s.quotaUntil = Number.NEGATIVE_INFINITY;
          const until = nowMs + (asked ? asked.ms : quota.forMs);
          if (until > s.notBefore) {
            s.notBefore = until;
            respread(s);
          }
          if (s.policyRate === Infinity && status !== 429) learnFrom429(s, nowMs);
        }
      }
      if (status === 429) {
        if (asked && nowMs + asked.ms > s.notBefore) {
          s.notBefore = nowMs + asked.ms;
          respread(s);
        }
        // An attempt sent before the last 429 that set the pace (or before any) tells of the pace before it.
        const sent = s.limitedAt === Number.NEGATIVE_INFINITY ? nowMs : sentWhen;
        if (sent !== undefined && sent > s.limitedAt) learnFrom429(s, nowMs);
        else s.growFrom = Math.max(s.growFrom, s.notBefore);
      } else if (
        status === 503 &&
        !s.down &&
        nowMs - Math.max(s.lastAcceptAt, s.firstAnswerAt) >= UNAVAILABLE_AFTER_MS
      ) {
        s.down = true;
        s.nextProbeAt = nowMs + PROBE_MS;
      }
    },

    review(run, outcome, decision) {
      if (!decision.retry || outcome.status === undefined) return decision;
      const s = origins.get(originOf(run.url));
      if (!s) return decision;
      // Retrying a 503 of an unavailable origin is what its probes are for.
      if (s.down && outcome.status === 503) return UNAVAILABLE;
      // A request refused for the rate takes its place in line now, before requests that come later.
      if (outcome.status === 429 && !places.has(run)) {
        join(run, s, { ticket: s.issued++, since: outcome.nowMs, heldUntil: outcome.nowMs });
      }
      return decision;
    },

    finish(run) {
      const place = places.get(run);
      if (sentAt.has(run)) landed(run, origins.get(originOf(run.url)));
      const s = place && origins.get(originOf(run.url));
      if (!place || !s) return;
      leave(run, s);
      // The last ticket handed out, never used, is given back; an earlier one is a slot passed over.
      if (s.issued === place.ticket + 1) s.issued = place.ticket;
    },
  };
  return branded(pacer, 'pacer');
};

/** Whether a value was made by {@link createPacer}. */
export const isPacer = (value: unknown): value is Pacer => isFeature(value, 'pacer');

/** The `pacer` option, as the feature table's row puts it in the public options. */
export interface PacerOption {
  /**
   * The origin-wide pacer, from `createPacer()`: it learns the rate each origin accepts — from what
   * the server advertises (`RateLimit` / `RateLimit-Policy`, `X-RateLimit-Remaining` /
   * `X-RateLimit-Reset`) and from its 429s (not before their `Retry-After`, then a little below what it
   * accepted, growing again along a cubic curve) — and sends the policy's requests to it no faster, in
   * the order they came. A wait longer than `retryAfter.maxMs` (or past the deadline) fails the
   * request at once with a `PacerError`; while an origin answers everything with 503, requests fail at
   * once but one every 500 ms. Default `false`. Give one `Pacer` to several policies to share it.
   */
  readonly pacer?: Pacer | false;
}
