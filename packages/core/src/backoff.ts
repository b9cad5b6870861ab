/**
 * Backoff strategies: small pure functions `(state, params, random) -> [delayMs, nextState]`.
 *
 * The formulas are Marc Brooker's ("Exponential Backoff And Jitter", AWS Architecture Blog). Every
 * strategy is exported so that the simulator and users can call exactly the code the adapters run.
 *
 * @packageDocumentation
 */

/** A source of uniformly distributed numbers in `[0, 1)`, like `Math.random`. */
export type RandomSource = () => number;

/**
 * What a strategy remembers between retries of one request.
 *
 * `attempt` is the exponent of the exponential envelope. The retry policy passes the number of
 * retries already made (0 before the first retry), so the first wait of `full` jitter is at most
 * `baseMs`, as in the AWS SDKs. `prevMs` is the previous delay; `decorrelated` needs it and starts
 * from `baseMs` when it is `undefined`.
 */
export interface BackoffState {
  /** Retries already made (0 before the first retry). */
  readonly attempt: number;
  /** The previous delay, in ms (`decorrelated` grows from it). */
  readonly prevMs?: number | undefined;
}

/** The numbers every strategy takes. */
export interface BackoffParams {
  /** The unit of the envelope: the first envelope is `baseMs`. */
  readonly baseMs: number;
  /** No delay is ever longer than this. */
  readonly capMs: number;
}

/**
 * A backoff strategy: the delay before the next retry and the state to pass next time, or just the
 * delay (`() => 250`; the state then advances by one retry). Whatever it returns is held to
 * `[0, params.capMs]` (see {@link nextDelay}).
 */
export type Backoff = (
  state: BackoffState,
  params: BackoffParams,
  random: RandomSource,
) => readonly [delayMs: number, next: BackoffState] | number;

/** The names of the built-in strategies. */
export type BackoffStrategyName = 'constant' | 'exponential' | 'full' | 'equal' | 'decorrelated';

/** The state before the first retry. */
export const initialBackoffState: BackoffState = Object.freeze({ attempt: 0 });

/**
 * `random()` held to `[0, 1]`: an injected source that returns NaN, a negative number or more than 1
 * must not make a delay negative, NaN, or shorter than a server asked for.
 */
export const unitRandom = (random: RandomSource): number => {
  const r = random();
  return r >= 0 ? Math.min(r, 1) : 0;
};

const between = (low: number, high: number, random: RandomSource): number =>
  low + unitRandom(random) * (high - low);

/** `min(cap, base · 2^attempt)`, without overflowing to `Infinity` or `NaN` for large attempts. */
export const exponentialEnvelope = (attempt: number, { baseMs, capMs }: BackoffParams): number => {
  if (baseMs === 0) return 0;
  // For large attempts 2^attempt is Infinity and min() gives capMs; only 0 · Infinity would be NaN.
  // A shift gives the same power of two for the attempts of nearly every retry, without `Math.pow`.
  const power = attempt >= 0 && attempt < 31 && (attempt | 0) === attempt ? 1 << attempt : 2 ** attempt;
  return Math.min(capMs, baseMs * power);
};

const advance = (state: BackoffState, delayMs: number): BackoffState => ({
  attempt: state.attempt + 1,
  prevMs: delayMs,
});

/** A strategy that always returns the delay and the next state. */
type BuiltIn = (
  state: BackoffState,
  params: BackoffParams,
  random: RandomSource,
) => readonly [delayMs: number, next: BackoffState];

/** The seeds' "no backoff": `base` every time. */
export const constant: BuiltIn = (state, params) => {
  const delay = Math.min(params.baseMs, params.capMs);
  return [delay, advance(state, delay)];
};

/** Capped exponential backoff without jitter: `min(cap, base · 2^attempt)`. */
export const exponential: BuiltIn = (state, params) => {
  const delay = exponentialEnvelope(state.attempt, params);
  return [delay, advance(state, delay)];
};

/** Full jitter: `random(0, min(cap, base · 2^attempt))`. The default. */
export const full: BuiltIn = (state, params, random) => {
  const delay = between(0, exponentialEnvelope(state.attempt, params), random);
  return [delay, advance(state, delay)];
};

/** Equal jitter: `t/2 + random(0, t/2)` with `t = min(cap, base · 2^attempt)`. */
export const equal: BuiltIn = (state, params, random) => {
  const envelope = exponentialEnvelope(state.attempt, params);
  const half = envelope / 2;
  // min(): with subnormal numbers half + half can round above the envelope.
  const delay = Math.min(envelope, half + between(0, half, random));
  return [delay, advance(state, delay)];
};

/** Decorrelated jitter: `min(cap, random(base, prev · 3))`, `prev` starting at `base`. */
export const decorrelated: BuiltIn = (state, params, random) => {
  const prev = state.prevMs ?? params.baseMs;
  const high = Math.max(params.baseMs, prev * 3);
  const delay = Math.min(params.capMs, between(params.baseMs, high, random));
  return [delay, advance(state, delay)];
};

/** The built-in strategies by name. */
export const backoffStrategies: Readonly<Record<BackoffStrategyName, BuiltIn>> = Object.freeze({
  constant,
  exponential,
  full,
  equal,
  decorrelated,
});

/**
 * Runs a strategy and keeps its result inside `[0, capMs]`: a user's strategy that returns `NaN`,
 * a negative or an infinite number, or something that is neither a number nor a `[delay, state]`
 * pair, must never turn into an unbounded or negative wait, nor fail the request (`capMs` then).
 */
export const nextDelay = (
  backoff: Backoff,
  state: BackoffState,
  params: BackoffParams,
  random: RandomSource,
): readonly [delayMs: number, next: BackoffState] => {
  const result = backoff(state, params, random);
  const pair = Array.isArray(result) ? result : undefined;
  const raw = pair ? pair[0] : result;
  const delay =
    typeof raw === 'number' && Number.isFinite(raw) ? Math.min(Math.max(raw, 0), params.capMs) : params.capMs;
  const next = pair?.[1];
  if (typeof next !== 'object' || next === null) return [delay, advance(state, delay)];
  // A pair already in bounds is the answer as it is (every retry makes one: no copy of it).
  return pair!.length === 2 && Object.is(raw, delay)
    ? (result as readonly [number, BackoffState])
    : [delay, next];
};
