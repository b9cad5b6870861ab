/**
 * The user's own `beforeRetry` hooks, run for jitterbug's retries with ky's arguments (ky 2: its
 * `init` hook is the one place ky shows a call's hooks). They run after the policy's `beforeRetry`,
 * on a `Request` for the attempt about to be sent: what they set on its headers is sent, a `Request`
 * they return is sent whole. A `Response`, `ky.stop` or a throw ends the run, and the call leaves
 * ky's `fetch` through ky's own retry path (a {@link KyExit}), where the kyRetry `beforeRetry` hook
 * hands ky that outcome: ky then settles the call exactly as its own retry would.
 */
import type { NextAttempt } from '@jitterbug/core';
import { finishRun, type RetryRun, setRetryInfo } from '@jitterbug/core/adapter';
import type { Call } from '@jitterbug/fetch/engine';
import type { CallState } from './call-state.ts';
import { isRequest, isResponse } from './hook-args.ts';
import { kyErrorFor } from './ky-errors.ts';

/**
 * A hook of the user's ended the call: ky's `fetch` rejects with this, ky's own retry path takes it
 * (ky's retry limit is opened for calls with such hooks) and the kyRetry `beforeRetry` hook returns
 * or throws what {@link KyExit.settle} gives.
 */
export class KyExit extends Error {
  declare readonly settle: () => unknown;
  constructor(settle: () => unknown) {
    super('jitterbug: a beforeRetry hook ended the call, and ky did not take it through its retry path');
    this.name = 'KyExit';
    this.settle = settle;
  }
}

/** `ky.stop`, from whichever copy of ky the hook imported. */
const isStop = (value: unknown): boolean => typeof value === 'symbol' && value.description === 'stop';

/**
 * The attempt about to be sent, as a `Request` a hook may change or copy (its body its own). The call
 * takes what the policy's hook set first, as the core would after the hooks: a `Request` sent to
 * another URL then goes as its bytes (read once), as every attempt after it does.
 */
const nextRequest = async (call: Call, next: NextAttempt): Promise<Request> => {
  await call.edit(next.url, next.headers);
  const [input, init] = call.attempt(undefined);
  return new Request(input, init);
};

/**
 * The next attempts send `request`'s headers: what the hooks left on the one they were shown (made
 * with the call's headers and its body as bytes, so the `Request` added none of its own), or what
 * one they returned holds.
 */
const sendHeadersOf = (request: Request, next: NextAttempt): void => {
  for (const name of [...next.headers.keys()]) next.headers.delete(name);
  for (const [name, value] of request.headers) next.headers.append(name, value);
};

/**
 * The next attempts send `request` whole, as it is but for the call's signal (the caller's cancel and
 * ky's timeout still end it): its URL and headers are what the core applies next. What the call's
 * init said of the old request is dropped; the rest of it (a `dispatcher`) stays. Its body is read
 * into bytes once, so that every attempt after it can send it again.
 */
const adopt = async (request: Request, call: Call, next: NextAttempt): Promise<void> => {
  // What a `Request` holds itself (method, headers, body, credentials, …) is the new one's.
  const init = call.init as Record<string, unknown> | undefined;
  const kept: Record<string, unknown> = {};
  for (const key in init) if (!(key in request)) kept[key] = init[key];
  if (call.callerSignal) kept.signal = call.callerSignal;
  call.use(request, kept, 'replayable');
  await call.readRequestBody();
  next.url = request.url;
  sendHeadersOf(request, next);
};

/**
 * Ends the run as the hook ended the call, and leaves ky's `fetch` with the outcome for ky (without
 * `settle`: with the error itself, which ky's retry path passes on unchanged).
 */
const exit = async (
  run: RetryRun,
  outcome: Parameters<typeof finishRun> extends [unknown, ...infer Rest] ? Rest : never,
  settle: (() => unknown) | undefined,
  tagged?: unknown,
): Promise<never> => {
  await (finishRun(run, ...outcome) as Promise<void> | undefined)?.catch(() => undefined);
  if (tagged !== undefined && run.summary) setRetryInfo(tagged, run.summary);
  throw settle ? new KyExit(settle) : tagged;
};

/**
 * Runs the user's `beforeRetry` hooks before a retry (not before a hedged copy or a resume: ky's
 * hooks are for retries), as the fetch engine's `beforeRetry` setting.
 */
export const runUserRetryHooks = async (state: CallState, next: NextAttempt, call: Call): Promise<void> => {
  if (next.kind !== 'retry') return;
  const { run } = call;
  const request = await nextRequest(call, next);
  const unsent = (): void => void request.body?.cancel().catch(() => undefined);
  try {
    const error = await kyErrorFor(state, next, call.method);
    const shown = { request, options: state.options, error, retryCount: run.attempts };
    for (const hook of state.hooks ?? []) {
      let result: unknown;
      try {
        result = await hook(shown);
      } catch (hookError) {
        unsent();
        // The error it was shown, thrown again: the call fails with it as with ky's own retry, where
        // ky's beforeError hooks see it (ky's retry path passes it on). Any other error goes on as it
        // is, past them.
        return exit(
          run,
          ['hook-failed', next.status, hookError, false],
          hookError === error
            ? undefined
            : () => {
                throw hookError;
              },
          hookError,
        );
      }
      // Its body may be the one of the `Request` the hooks were shown (`new Request(url, request)`
      // takes that stream): that one is left alone.
      if (isRequest(result)) return adopt(result, call, next);
      if (isResponse(result)) {
        unsent();
        const ok = result.ok;
        return exit(
          run,
          [ok ? 'success' : 'should-retry', result.status, undefined, ok],
          () => result,
          result,
        );
      }
      if (isStop(result)) {
        unsent();
        return exit(run, ['should-retry', next.status, next.error, false], () => result);
      }
    }
    sendHeadersOf(request, next);
    unsent();
  } finally {
    state.dropCopy();
  }
};
