/**
 * A circuit breaker per origin, opt-in (`breaker: createCircuitBreaker()`): when a share of an
 * origin's answers over a window are failures, requests to it fail at once for a while instead of
 * adding load to a server that is down, then one probe finds out whether it is back.
 *
 * - **Closed**: every answer is counted in a sliding window (`samplingMs`, in ten buckets). When at
 *   least `minimumThroughput` answers were counted and `failureRatio` of them failed (a 5xx, a 408,
 *   an error with no answer), the circuit opens for `breakMs`. The defaults are Polly v8's (0.1 of
 *   at least 100 answers over 30 s, a 5 s break): a minimum throughput keeps one unlucky request
 *   from opening a circuit (opossum counts from the first).
 * - **Open**: a first attempt fails at once with a {@link CircuitOpenError} (reason `circuit-open`
 *   in `getRetryInfo`, what the origin failed with on the error); a retry waits out the break, once,
 *   when the break ends within `retryAfter.maxMs` and the deadline, rather than spending its
 *   attempts on an open circuit.
 * - **Half-open**: after the break, one request probes; its answer closes the circuit or opens it
 *   again. Others are held (retries) or refused (first attempts) meanwhile.
 *
 * With a `store`, the fleet's circuit is shared the way Powertools' is: counts stay in memory, and
 * only changes go to the store (`breaker.report`: this instance broke). The fleet's circuit opens
 * when `quorum` instances broke within the window, not on one process's word; a process that sees
 * failures asks the fleet's state at most once per `CHECK_MS` (a successful answer asks nothing).
 * After the break, exactly one instance of the fleet probes per half-open period, elected by the
 * store (`breaker.probe`, an id per breaker object); the others wait for its answer
 * (`breaker.settle`). Every time from the store is a duration: host clocks that are off change
 * nothing. When the store fails, the breaker goes on alone.
 */
import { checkFields, fail, numberCheck } from '../option-error.ts';
import type {
  claimProbe,
  FleetBreakerSettings,
  newInstanceId,
  reportBreak,
  settleProbe,
} from '../store/breaker.ts';
import type { SharedStore, StoreResult } from '../store/port.ts';
import type { RunView, Turn } from '../types.ts';
import { branded, isFeature, type RunFeature } from './feature.ts';
import { originOf } from './origin.ts';

/** Options of {@link createCircuitBreaker}. */
export interface CircuitBreakerOptions {
  /** The share of failed answers in the window that opens the circuit, from 0 to 1. Default 0.1. */
  readonly failureRatio?: number;
  /** The fewest answers in the window before the ratio counts. Default 100. */
  readonly minimumThroughput?: number;
  /** The window answers are counted over, in ms. Default 30 000. */
  readonly samplingMs?: number;
  /** How long the circuit stays open, in ms. Default 5 000. */
  readonly breakMs?: number;
  /**
   * A store to share the circuit with the fleet (`redisStore(url)`, …), with `createCircuitBreaker`
   * from `@jitterbug/core/store` (this one's carries no store code). Default none.
   */
  readonly store?: SharedStore;
  /** With a store: the instances that must have broken, within the window, to open the fleet's circuit. Default 2. */
  readonly quorum?: number;
}

/** The defaults of {@link CircuitBreakerOptions} (Polly v8's). */
export const CIRCUIT_BREAKER_DEFAULTS = Object.freeze({
  failureRatio: 0.1,
  minimumThroughput: 100,
  samplingMs: 30_000,
  breakMs: 5_000,
  quorum: 2,
});

/** A circuit breaker: a feature of the run, per origin. */
export interface CircuitBreaker extends RunFeature {
  /** The circuit of `origin` at `nowMs` (the policy's clock). */
  stateOf(origin: string, nowMs: number): 'closed' | 'open' | 'half-open';
}

/** The error a request fails with, nothing sent, while its origin's circuit is open. */
export class CircuitOpenError extends Error {
  /** Always `ERR_JITTERBUG_CIRCUIT_OPEN`. */
  readonly code = 'ERR_JITTERBUG_CIRCUIT_OPEN';
  /** The origin. */
  readonly origin: string;
  /** What opened the circuit: the last failure counted (`status 503`, an error's code), or the fleet's break. */
  readonly failure: string;
  /** How long until the circuit is probed again, in ms. */
  readonly retryInMs: number;
  constructor(origin: string, failure: string, retryInMs: number) {
    super(
      `jitterbug: the circuit of ${origin} is open (${failure}); it is probed again in ${Math.ceil(retryInMs)} ms`,
    );
    this.name = 'CircuitOpenError';
    this.origin = origin;
    this.failure = failure;
    this.retryInMs = retryInMs;
  }
}

const BUCKETS = 10;
/** A process that sees failures asks the fleet's circuit at most this often, in ms. */
const CHECK_MS = 1000;
/** After the store failed, the breaker goes on alone for this long, in ms. */
const FALLBACK_MS = 1000;
/** The backstop on a store's answer, in ms (a store of ours answers within its own timeout). */
const ANSWER_MS = 1000;

interface Circuit {
  /** `undefined`: closed; else open until then (half-open after it). */
  openUntil: number | undefined;
  /** The run that probes the half-open circuit; a fleet claim in flight. */
  prober: RunView | undefined;
  claiming: { readonly since: number } | undefined;
  failure: string;
  /** Per bucket: failures and answers; the bucket of index `bucket` is the current one. */
  readonly failures: Float64Array;
  readonly answers: Float64Array;
  bucket: number;
  checkedAt: number;
}

const FIELDS = {
  failureRatio: numberCheck(0, 1),
  minimumThroughput: numberCheck(1, 1e9, true),
  samplingMs: numberCheck(10, 30 * 24 * 3600 * 1000),
  breakMs: numberCheck(1, 30 * 24 * 3600 * 1000),
  store: (v: unknown, n: string) =>
    v === undefined || (typeof v === 'object' && v !== null && typeof (v as SharedStore).run === 'function')
      ? v
      : fail(n, 'a SharedStore (redisStore(url), createMemoryStore(), …)', v),
  quorum: numberCheck(1, 64, true),
};

/** What the answer was, as the breaker counts it: a failure's description, or `undefined` for a success. */
const failureOf = (
  status: number | undefined,
  error: unknown,
  code: string | undefined,
): string | undefined => {
  if (status !== undefined) return status >= 500 || status === 408 ? `status ${status}` : undefined;
  if (error === undefined) return undefined;
  return code ?? (error instanceof Error ? error.name : 'an error');
};

/**
 * Creates a circuit breaker: `breaker: createCircuitBreaker()`. Give one to several policies to
 * share it; give the fleet a `store` to share it across processes.
 *
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createCircuitBreaker = (options: CircuitBreakerOptions = {}): CircuitBreaker =>
  circuitBreaker(options, undefined);

/** The store's breaker operations, given by the fleet's `createCircuitBreaker` (`fleet-breaker.ts`). */
export interface FleetBreakerOperations {
  readonly reportBreak: typeof reportBreak;
  readonly claimProbe: typeof claimProbe;
  readonly settleProbe: typeof settleProbe;
  readonly newInstanceId: typeof newInstanceId;
}

/** A circuit breaker, shared through `options.store` when `fleetOps` is given. */
export const circuitBreaker = (
  options: CircuitBreakerOptions,
  fleetOps: FleetBreakerOperations | undefined,
): CircuitBreaker => {
  const o = checkFields(
    options,
    'breaker',
    { ...CIRCUIT_BREAKER_DEFAULTS, store: undefined },
    FIELDS,
  ) as Required<Omit<CircuitBreakerOptions, 'store'>> & { store: SharedStore | undefined };
  const { failureRatio, minimumThroughput, samplingMs, breakMs, store, quorum } = o;
  if (store !== undefined && fleetOps === undefined)
    fail(
      'breaker.store',
      "absent here: a circuit the fleet shares is createCircuitBreaker({ store }) from '@jitterbug/core/store'",
      store,
    );
  const ops = fleetOps as FleetBreakerOperations;
  const bucketMs = samplingMs / BUCKETS;
  // While another instance probes, the fleet's circuit is asked again this often.
  const pollMs = Math.max(50, breakMs / 10);
  const fleet: FleetBreakerSettings = {
    instanceId: fleetOps ? fleetOps.newInstanceId() : 0,
    windowMs: samplingMs,
    quorum,
    breakMs,
    probeMs: breakMs,
    keepMs: samplingMs,
  };
  const circuits = new Map<string, Circuit>();
  // When a retry first waited for an open circuit; the circuit a request probes.
  const held = new WeakMap<RunView, number>();
  const probing = new WeakMap<RunView, Circuit>();
  let aloneUntil = Number.NEGATIVE_INFINITY;

  const circuitOf = (origin: string, now: number): Circuit => {
    let c = circuits.get(origin);
    if (!c) {
      if (circuits.size >= 1000) circuits.delete(circuits.keys().next().value as string);
      c = {
        openUntil: undefined,
        prober: undefined,
        claiming: undefined,
        failure: '',
        failures: new Float64Array(BUCKETS),
        answers: new Float64Array(BUCKETS),
        bucket: Math.floor(now / bucketMs),
        checkedAt: Number.NEGATIVE_INFINITY,
      };
      circuits.set(origin, c);
    }
    return c;
  };

  const advance = (c: Circuit, now: number): void => {
    const b = Math.floor(now / bucketMs);
    for (let i = c.bucket + 1; i <= Math.min(b, c.bucket + BUCKETS); i++) {
      c.failures[i % BUCKETS] = 0;
      c.answers[i % BUCKETS] = 0;
    }
    if (b > c.bucket) c.bucket = b;
  };

  const reset = (c: Circuit): void => {
    c.openUntil = undefined;
    c.prober = undefined;
    c.failures.fill(0);
    c.answers.fill(0);
  };

  /** Whether the store may be asked now; a failed answer leaves the breaker alone for a while. */
  const shared = (now: number): boolean => store !== undefined && now >= aloneUntil;
  const answered = <T>(reply: StoreResult<T>, now: () => number): reply is StoreResult<T> & { ok: true } => {
    if (!reply.ok) aloneUntil = now() + FALLBACK_MS;
    return reply.ok;
  };

  /** The fleet's circuit, as an answer tells it, laid over this one. */
  const follow = (c: Circuit, circuit: string, msLeft: number, now: number): void => {
    if (circuit === 'open') {
      c.openUntil = now + msLeft;
      if (!c.failure.startsWith('the fleet'))
        c.failure = `the fleet's circuit is open (${c.failure || 'a quorum broke'})`;
    } else if (circuit === 'half-open' && c.openUntil === undefined) {
      c.openUntil = now;
    }
  };

  const refusal = (origin: string, c: Circuit, now: number): Turn => ({
    refuse: 'circuit-open',
    error: new CircuitOpenError(origin, c.failure, Math.max(0, (c.openUntil ?? now) - now)),
    refusedDelayMs: Math.max(0, (c.openUntil ?? now) - now),
  });

  /**
   * A retry waits out the break (and the probe after it) while its whole wait stays within
   * `retryAfter.maxMs` and the deadline; a first attempt, or a retry that would wait longer, fails
   * at once.
   */
  const waitOrRefuse = (run: RunView, origin: string, c: Circuit, until: number, now: number): Turn => {
    const left = Math.max(1, until - now);
    const since = held.get(run) ?? now;
    const ro = run.options;
    const within =
      run.attempts > 0 &&
      (ro.retryAfter ? now - since + left <= ro.retryAfter.maxMs : true) &&
      (ro.deadlineMs === undefined || run.elapsedMs() + left <= ro.deadlineMs);
    if (!within) return refusal(origin, c, now);
    held.set(run, since);
    return { holdMs: left };
  };

  const probe = (run: RunView, c: Circuit): undefined => {
    c.prober = run;
    probing.set(run, c);
    return undefined;
  };

  const breaker: CircuitBreaker = {
    stateOf(origin, nowMs) {
      const c = circuits.get(origin);
      if (c?.openUntil === undefined) return 'closed';
      return nowMs < c.openUntil ? 'open' : 'half-open';
    },

    admit(run): Turn | undefined {
      if (circuits.size === 0) return undefined;
      const origin = originOf(run.url);
      const c = circuits.get(origin);
      if (c?.openUntil === undefined) return undefined;
      const clock = run.options.now;
      const now = clock();
      if (now < c.openUntil) return waitOrRefuse(run, origin, c, c.openUntil, now);
      if (c.prober === run) return undefined;
      if (c.prober !== undefined) return waitOrRefuse(run, origin, c, now + breakMs, now);
      // Half-open: this request probes, when the fleet elects it (or alone).
      if (!shared(now)) return probe(run, c);
      if (c.claiming === undefined) {
        const claim = { since: now };
        c.claiming = claim;
        void ops.claimProbe(store!, origin, fleet).then((reply) => {
          if (c.claiming === claim) c.claiming = undefined;
          if (!answered(reply, clock)) return;
          const t = clock();
          // Closed: the fleet never broke (this instance did, alone) or a probe closed it: this
          // request probes for this instance.
          if (reply.value.granted || reply.value.circuit === 'closed') probe(run, c);
          // Another probes: asked again soon, to follow its answer within the period.
          else
            c.openUntil =
              t +
              Math.max(
                1,
                reply.value.circuit === 'half-open' ? Math.min(reply.value.forMs, pollMs) : reply.value.forMs,
              );
        });
      }
      if (now - c.claiming.since < ANSWER_MS) return { holdMs: 1 };
      aloneUntil = now + FALLBACK_MS;
      c.claiming = undefined;
      return probe(run, c);
    },

    observe(run, { status, error, code, aborted }) {
      if (aborted) return;
      const clock = run.options.now;
      const now = clock();
      const origin = originOf(run.url);
      const failure = failureOf(status, error, code);
      const c = circuitOf(origin, now);
      if (c.prober === run) {
        // The probe's answer settles the circuit, here and, with a store, for the fleet.
        if (failure === undefined) reset(c);
        else {
          c.prober = undefined;
          c.openUntil = now + breakMs;
          c.failure = failure;
        }
        if (shared(now))
          void ops.settleProbe(store!, origin, fleet, failure === undefined).then((reply) => {
            if (answered(reply, clock) && reply.value.circuit === 'open' && failure !== undefined)
              c.openUntil = clock() + reply.value.forMs;
          });
        return;
      }
      if (c.openUntil !== undefined) return;
      advance(c, now);
      c.answers[c.bucket % BUCKETS]!++;
      if (failure === undefined) return;
      c.failures[c.bucket % BUCKETS]!++;
      c.failure = failure;
      let answers = 0;
      let failures = 0;
      for (let i = 0; i < BUCKETS; i++) {
        answers += c.answers[i]!;
        failures += c.failures[i]!;
      }
      const broke = answers >= minimumThroughput && failures >= failureRatio * answers;
      if (broke) c.openUntil = now + breakMs;
      // A break is a change the fleet hears of; a failure short of one asks the fleet, now and then.
      if (!shared(now) || (!broke && now - c.checkedAt < CHECK_MS)) return;
      c.checkedAt = now;
      void ops.reportBreak(store!, origin, fleet, broke).then((reply) => {
        if (answered(reply, clock)) follow(c, reply.value.circuit, reply.value.openForMs, clock());
      });
    },

    finish(run) {
      // A probe that ended with no answer (aborted) leaves the half-open circuit to the next request.
      const c = probing.get(run);
      if (c?.prober === run) c.prober = undefined;
    },
  };
  return branded(breaker, 'breaker');
};

/** Whether a value was made by {@link createCircuitBreaker}. */
export const isCircuitBreaker = (value: unknown): value is CircuitBreaker => isFeature(value, 'breaker');

/** The `breaker` option, as the feature table's row puts it in the public options. */
export interface BreakerOption {
  /**
   * A circuit breaker per origin, from `createCircuitBreaker()`: when a share of an origin's answers
   * fail, requests to it fail at once with a `CircuitOpenError` for a while (a retry waits the break
   * out), then one request probes it. Default `false`. A policy's option; give one breaker to several
   * policies (or a `store` to the fleet) to share it.
   */
  readonly breaker?: CircuitBreaker | false;
}
