/**
 * One ky call's state, found again where ky hands the call on. ky 2 shows a call's options whole to
 * an `init` hook only: that hook puts the state in the call's `jitterbug` option, which ky passes on
 * to its `fetch` and shows to every later hook. ky 1 has no `init` hook: its `beforeRequest` hook
 * links the state to the `Request` ky sends (and to the call's `context`, for a forced retry).
 */
import type { CallOverrides } from '@jitterbug/core';
import { type BodyKind, type PrivateSlot, privateSlot, type RetryRun } from '@jitterbug/core/adapter';
import type { KyInitOptions, KyOptionsView } from './hook-args.ts';
import { kyTimeoutOf } from './ky-timeout.ts';

/** A hook of the user's, as ky calls it (one state object in ky 2). */
export type UserHook = (state: object) => unknown;

/** What the last attempt of a call with `beforeRetry` hooks of the user's sent and got. */
export interface LastAttempt {
  /** What it sent (with the call's method: the one a later hook is shown). */
  readonly input: Request | URL | string;
  readonly response: Response | undefined;
  /** A copy of a failed response's body, read for `HTTPError.data` if the attempt is retried. */
  readonly copy: Response | undefined;
}

export class CallState {
  /** The body's kind as ky's options hold it (`undefined`: not known, the `Request` tells). */
  declare readonly body: BodyKind | undefined;
  /** The call's own `jitterbug` option (ky 2: this state took its place in the options). */
  declare readonly overrides: CallOverrides | false | undefined;
  /** The run, once the first attempt began. */
  declare run: RetryRun | undefined;
  /**
   * ky 2: the call's options as its `init` hooks left them (later ones may set a timeout): ky's
   * timeouts are read from them when the run begins.
   */
  declare kyOptions: KyInitOptions | undefined;
  /** When the call began (`performance.now()`), if it had a `totalTimeout` then (ky 2). */
  declare startedMs: number;
  /** ky 1: ky's `timeout` for the call, in ms (`undefined`: none). */
  declare timeoutMs: number | undefined;
  /** Why the call is refused before anything is sent (thrown by the `beforeRequest` hook). */
  declare refused: TypeError | undefined;
  /** The user's own `beforeRetry` hooks (ky 2), which jitterbug's retries run. */
  declare hooks: readonly UserHook[] | undefined;
  /** ky's normalized options, as its `beforeRequest` hooks see them. */
  declare options: KyOptionsView | undefined;
  declare last: LastAttempt | undefined;
  /**
   * What the call's own URL was written under, for route rules: its `baseUrl`, then its `prefix`
   * (ky 1: its `prefixUrl`); `undefined` without either.
   */
  declare base: readonly unknown[] | undefined;

  constructor(body: BodyKind | undefined, overrides: CallOverrides | false | undefined) {
    this.body = body;
    this.overrides = overrides;
    this.startedMs = 0;
  }

  /** ky's timeout for what is left of the call (the run's deadline), in ms (`undefined`: none). */
  timeLeftMs(): number | undefined {
    const options = this.kyOptions;
    if (!options) return this.timeoutMs;
    const timeout = kyTimeoutOf(options.timeout);
    const total = options.totalTimeout;
    if (typeof total !== 'number') return timeout;
    const left = this.startedMs === 0 ? total : Math.max(0, total - (performance.now() - this.startedMs));
    return timeout === undefined ? left : Math.min(timeout, left);
  }

  /**
   * Keeps what an attempt sent and got (with a copy of a failed response's body, for `HTTPError.data`),
   * and drops the copy of the attempt before it.
   */
  keep(input: LastAttempt['input'], response?: Response): void {
    this.dropCopy();
    const copy =
      !response || response.ok || typeof response.clone !== 'function' ? undefined : response.clone();
    this.last = { input, response, copy };
  }

  /** Cancels the copy of a failed response's body, unless it was read. */
  dropCopy(): void {
    const copy = this.last?.copy;
    if (copy && !copy.bodyUsed) void copy.body?.cancel().catch(() => undefined);
  }
}

/** ky 1: the state of the call a `Request` or a `context` belongs to. */
export const byContext: PrivateSlot<CallState> = privateSlot<CallState>();
export const byRequest: PrivateSlot<CallState> = privateSlot<CallState>();

/** The state a call's normalized options carry (ky 2), or its `context` (ky 1). */
export const stateOf = (options: KyOptionsView): CallState | undefined => {
  const boxed = options.jitterbug;
  if (boxed instanceof CallState) return boxed;
  return options.context ? byContext.get(options.context) : undefined;
};
