/**
 * The `retry` option handed to ky. ky's own retry machinery is the only way to send a ky request
 * again, so it stays on, but emptied of decisions: every error reaches the `beforeRetry` hook (where
 * the core decides), no status is retried by ky (statuses are decided in `afterResponse`), and ky
 * waits 0 ms (the core's wait happens in `beforeRetry`).
 */
import { reportKy1Abort } from './ky1-abort.ts';

/** ky validates `limit` as a finite integer; the core's `maxAttempts` is the real limit. */
export const KY_RETRY_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * ky checks the method against `retry.methods` before asking `shouldRetry`, so every method must be
 * listed for the core to see the error (the core then applies its own method rule).
 */
export const KY_RETRY_METHODS: readonly string[] = Object.freeze([
  'get',
  'head',
  'options',
  'put',
  'delete',
  'trace',
  'query',
  'post',
  'patch',
  'connect',
]);

const isHttpError = (error: unknown): boolean =>
  error instanceof Error && error.name === 'HTTPError' && 'response' in error;

/**
 * A final status reaches ky as an `HTTPError` only after the core declined to retry it: ky must
 * throw it as is. Anything else goes on to `beforeRetry`, where the core decides; on ky 1 a
 * caller's abort ends here (see `ky1-abort.ts`).
 */
export const kyShouldRetry = ({ error }: { readonly error: unknown }): boolean => {
  if (isHttpError(error)) return false;
  reportKy1Abort(error);
  return true;
};

/** ky's own delay: none. */
export const kyNoDelay = (): number => 0;

/** The `retry` option, a new object each time (ky merges options into it). */
export const kyRetryOption = () => ({
  limit: KY_RETRY_LIMIT,
  methods: [...KY_RETRY_METHODS],
  statusCodes: [] as number[],
  afterStatusCodes: [] as number[],
  shouldRetry: kyShouldRetry,
  delay: kyNoDelay,
});

/**
 * Throws when the `retry` option ky is using is not the one from `kyRetry` (e.g. a request passed
 * `retry: 2`): ky would then retry on its own as well, with its own status list and delays.
 */
// A plain copy to compare against: V8 runs array methods on a frozen array many times slower.
const METHODS: string[] = [...KY_RETRY_METHODS];

const listsEveryMethod = (methods: unknown): boolean => {
  if (!Array.isArray(methods)) return false;
  // ky copies the list per call but keeps its order: compared in place first (every call pays this).
  if (methods.length === METHODS.length) {
    let i = 0;
    while (i < METHODS.length && methods[i] === METHODS[i]) i++;
    if (i === METHODS.length) return true;
  }
  return METHODS.every((m) => methods.includes(m));
};

export const assertKyRetryIntact = (retry: unknown): void => {
  const r = retry as Record<string, unknown> | undefined;
  const intact =
    r !== undefined &&
    r.shouldRetry === kyShouldRetry &&
    r.delay === kyNoDelay &&
    r.limit === KY_RETRY_LIMIT &&
    typeof r.jitter !== 'function' &&
    listsEveryMethod(r.methods);
  if (!intact) {
    throw new TypeError(
      "jitterbug: ky's `retry` option was overridden after kyRetry(); jitterbug makes every retry " +
        "decision and ky's own retry must stay off. Configure retries in kyRetry's options instead.",
    );
  }
};

/**
 * ky checks the request's method against `retry.methods` before anything else, so a method the
 * core may retry (one in the policy's `methods`, or any with an idempotency key) but missing from
 * the list above would never reach the core. Each call's own copy of the list gets its method.
 */
export const listMethod = (retry: unknown, method: unknown): void => {
  const methods = (retry as { methods?: unknown } | null | undefined)?.methods;
  if (!Array.isArray(methods)) return;
  const name = String(method ?? 'get').toLowerCase();
  if (!methods.includes(name)) methods.push(name);
};
