/**
 * Forced retries: `ky.retry()` from an `afterResponse` hook, decided by the call's run. Opt-in, and
 * an export rather than a flag, so that a program that does not force retries carries none of this.
 */
import { noOptions, runForcedRetry, setRetryInfo } from '@jitterbug/core/adapter';
import { byRequest, stateOf } from './call-state.ts';
import { beforeRetryArgs } from './hook-args.ts';

/** What `kyRetry(options, { forcedRetries: createForcedRetries() })` takes: what {@link createForcedRetries} returns. */
export interface ForcedRetries {
  /** ky's `beforeRetry` hook, which only a retry the user forced reaches. */
  readonly beforeRetry: (...args: unknown[]) => Promise<void>;
}

const isForcedRetry = (error: unknown): error is Error & { customDelay?: number } =>
  (error as { name?: unknown } | null)?.name === 'ForceRetryError';

const FORCED_RETRIES: ForcedRetries = {
  // Only a retry the user forced reaches here (ky's own retry lists no method and no status, and
  // takes nothing else but jitterbug's own exits, which kyRetry's hook settles before this).
  async beforeRetry(...args) {
    const { request, options, error } = beforeRetryArgs(args);
    const state = stateOf(options);
    const run = state?.run;
    if (!state || !run || !isForcedRetry(error)) throw error;
    // ky waited the delay `ky.retry({ delay })` gave before it called this hook.
    if (!(await runForcedRetry(run, error.customDelay, options.signal ?? undefined))) {
      if (run.summary) setRetryInfo(error, run.summary);
      throw error;
    }
    byRequest.set(request, state);
  },
};

/**
 * Forced retries, to give to `kyRetry`: `kyRetry(options, { forcedRetries: createForcedRetries() })`
 * lets `ky.retry()` from an `afterResponse` hook retry the call through its run. ky then copies every
 * call's `Request` (and tees a stream body into memory) for the retry it might make, which costs
 * every call (see the README). A factory, as the core's opt-in features are, so that a program that
 * does not force retries carries none of this.
 */
export const createForcedRetries = (...none: never[]): ForcedRetries => {
  noOptions('createForcedRetries', none);
  return FORCED_RETRIES;
};
