/**
 * What this package remembers about one request between its events, keyed by the run object every
 * message carries (a `WeakMap`: the state goes when the run does, with no clean-up to forget).
 */
import type { RunIdentity } from '@jitterbug/core/diagnostics';
import type { Attributes, Span } from '@opentelemetry/api';

export interface RunState {
  /** The span active when the run began, when it records and `activeSpan` is on. */
  readonly callerSpan: Span | undefined;
  /**
   * `http.request.method`, `server.*`, `jitterbug.route`, for metric points and events (computed once
   * per request); `undefined` when the run's start was not seen.
   */
  readonly request: Attributes | undefined;
  /**
   * Hedged copies announced so far (each is a resend too): a send's resend count is its attempt
   * number minus one, plus these. Counted from the attempt number, it is right even for a run whose
   * first attempts were made before the instrumentation began.
   */
  copies: number;
  /** The last send announced (attempt and copy), so that a repeated announcement is not counted. */
  lastAttempt: number;
  lastCopy: number;
  /** The span an attempt-span hook reached for the latest attempt (not a hedged copy), and its number. */
  attemptSpan: Span | undefined;
  attemptSpanNumber: number;
  /** The last `jitterbug:attempt:end`: its error and the code the decision read for it. */
  lastError: unknown;
  lastErrorCode: string | undefined;
  /** The run's end was recorded (a run reopened by a forced retry or a resume ends again). */
  ended: boolean;
}

/** The states of the runs seen by one instrumentation. */
export class RunStates {
  readonly #states = new WeakMap<RunIdentity, RunState>();

  /** Starts the state of a run (at `jitterbug:run:start`). */
  begin(run: RunIdentity, callerSpan: Span | undefined, request: Attributes | undefined): RunState {
    const state: RunState = {
      callerSpan,
      request,
      copies: 0,
      lastAttempt: 0,
      lastCopy: 0,
      attemptSpan: undefined,
      attemptSpanNumber: 0,
      lastError: undefined,
      lastErrorCode: undefined,
      ended: false,
    };
    this.#states.set(run, state);
    return state;
  }

  /**
   * The state of a run; an empty one when its start was not seen (the instrumentation began while
   * the request was in flight: no caller span nor request attributes are known then).
   */
  of(run: RunIdentity): RunState {
    return this.#states.get(run) ?? this.begin(run, undefined, undefined);
  }
}

/**
 * The code the decision read for `error`, when the event is about the attempt that ended last (a
 * fetch failure without a code is `ERR_NETWORK` only there); `undefined` for any other error.
 */
export const decidedCode = (state: RunState, error: unknown): string | undefined =>
  error !== undefined && error === state.lastError ? state.lastErrorCode : undefined;
