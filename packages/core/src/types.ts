/**
 * What the run's features and its drivers share, as types: a request as an adapter describes it,
 * a feature's turn before an attempt, and the run as a feature sees it (read-only). A leaf for the
 * modules that need these and nothing of the run's code.
 */
import type { BodyKind } from './body.ts';
import type { AttemptOutcome } from './decide.ts';
import type { NextAttempt, RetryInfo, StopReason } from './events.ts';
import type { HeaderGetter } from './retry-after.ts';
import type { RunOptions } from './run-options.ts';

/** A request as an adapter describes it to the policy. */
export interface RetryRequest {
  /** The request's method (any case). */
  readonly method: string;
  /** Absolute URL (adapters resolve base URLs first). */
  readonly url: string | URL;
  /**
   * What the call's own URL was written under (axios' `baseURL`; ky's `baseUrl`, then its `prefix`,
   * each resolved against the one before), when it has one: route rules match the path below it too.
   */
  readonly base?: string | URL | readonly unknown[] | undefined;
  /** Request headers, for the idempotency key. */
  readonly headers?: HeaderGetter;
  /** Default `'none'`. */
  readonly body?: BodyKind;
}

/**
 * What a feature says about an attempt about to be sent: wait `holdMs` and ask again, or refuse it
 * (the request then fails with `error`, its run finished as `refuse`, nothing sent). A description
 * rather than a promise, so that a simulation can take the same turn without one.
 */
export type Turn =
  | {
      /** Wait this many ms, then ask again. */
      readonly holdMs: number;
    }
  | {
      /** Refuse the attempt: the run finishes with this reason. */
      readonly refuse: StopReason;
      /** The error the request fails with. */
      readonly error: Error;
      /** The wait that was not made, for `onGiveUp`. */
      readonly refusedDelayMs?: number | undefined;
    };

/**
 * What `beforeAttempt` is given: the caller's signal, or an object that makes one only when an
 * attempt is held (`signal()`).
 */
export type HoldSignal =
  | AbortSignal
  | {
      /** The caller's signal, made when it is first needed; `undefined` when there is none. */
      signal(): AbortSignal | undefined;
    };

/** One request's run, as its features see it: read, never written. */
export interface RunView {
  /** The options in force for this request (after route rules and the call's overrides). */
  readonly options: RunOptions;
  /** Upper-case method. */
  readonly method: string;
  readonly url: string;
  /** The request's headers (a generated idempotency key among them). */
  readonly headers: HeaderGetter;
  /** The body as the decision sees it. */
  readonly body: BodyKind;
  /** Attempts counted so far. */
  readonly attempts: number;
  /** Transparent retries made so far (not in `maxAttempts`). */
  readonly transparentRetries: number;
  /** The client has hooks of its own that may change a retry (ky's `beforeRetry`). */
  readonly retryHooks: boolean;
  /** Sum of the waits so far, in ms. */
  readonly totalDelayMs: number;
  /** Set once the request is finished. */
  readonly summary: RetryInfo | undefined;
  /** What the last decision looked at. */
  readonly lastOutcome: AttemptOutcome | undefined;
  /** Time since the run began, by the policy's clock. */
  elapsedMs(): number;
}

/** A request whose headers and URL the next attempts may be sent with (an adapter's). */
export interface EditableRequest {
  /** A copy of the headers the next attempt would be sent with. */
  requestHeaders(): Headers;
  /** The URL the next attempt would be sent to. */
  requestUrl(): string;
  /** Sends the attempts from now on with this URL and these headers (a promise while that is prepared). */
  edit(url: string, headers: Headers): void | Promise<void>;
  /**
   * The client's own hooks for a retry, called after the policy's `beforeRetry` with what it set
   * (ky's `beforeRetry` hooks); they fail the request as the policy's hook does.
   */
  readonly beforeRetry?: ((next: NextAttempt) => unknown) | undefined;
  /**
   * What applies the edits of those hooks (`beforeRetry` above) when the options bring none: a
   * client whose own hooks change a retry by default (ky's) sets it, as the options'
   * `requestEdits: createRequestEdits()` would.
   */
  readonly edits?: RequestEditing | undefined;
}

/** What is about to be sent: the first attempt, a retry, a hedged copy or a request for the rest of a body. */
export type AttemptKind = 'first' | NextAttempt['kind'];

/** The options the edits read: the run's, with the features that edit. */
export type EditingOptions = RunOptions & {
  readonly editing: readonly AttemptEditor[];
  readonly feature: { readonly attemptHeaders?: { set(headers: Headers, run: RunView): void } | undefined };
  /** What applies the edits, when a factory brought it (`ResolvedOptions.edits`). */
  readonly edits?: RequestEditing | undefined;
};

/** What the edits read of a run. */
export interface EditedRun extends RunView {
  readonly options: EditingOptions;
  readonly idempotencyKey: string | undefined;
}

/**
 * What applies an attempt's edits to the driver's request (`attempt-edits.ts`): brought by the
 * factories whose features edit a request (`createRequestEdits()`, the attempt headers, generated
 * keys, a credential refresh), so that a bundle that imports none of them carries none of it.
 */
export interface RequestEditing {
  /**
   * Applies what the attempt of `kind` about to be sent carries to `request`: `undefined` when
   * nothing is to be set, or a promise while that is prepared. Throws (or rejects with) what a
   * hook throws.
   */
  apply(run: EditedRun, request: EditableRequest, kind: AttemptKind): unknown;
  /** Whether an attempt of `kind` is edited by a hook or a feature (its failure is the hook's). */
  hooked(options: EditingOptions, request: Partial<EditableRequest> | undefined, kind: AttemptKind): boolean;
}

/** A feature as the attempt edits see it: what it sets on a retry, a hedged copy or a resume. */
export interface AttemptEditor {
  /** See `RunFeature.edit`. */
  edit?(run: RunView, next: NextAttempt): unknown;
}
