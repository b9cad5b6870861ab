/**
 * What changes in a request between its attempts: a generated idempotency key (from the first
 * attempt on), the attempt headers (on every attempt), and what the features (a refreshed
 * credential) and then `beforeRetry` set (before each retry, hedged copy and resume). The core decides what to set; the adapter applies it to its client's
 * request through an {@link EditableRequest}.
 */
import type { RunFeature } from './features/feature.ts';
import type { NextAttempt, ResolvedOptions } from './options.ts';
import type { HeaderGetter } from './retry-after.ts';
import { after, type RetryRun } from './run.ts';

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
}

/** What is about to be sent: the first attempt, a retry, a hedged copy or a request for the rest of a body. */
export type AttemptKind = 'first' | NextAttempt['kind'];

/**
 * The key a request gets when the options generate keys, its method is not retried by itself and it
 * carries none; else `undefined`.
 *
 * @throws TypeError naming `idempotencyKey.generate` when the generator gives no usable value.
 */
export const generatedKey = (
  options: ResolvedOptions,
  upperMethod: string,
  headers: HeaderGetter,
): string | undefined => {
  const { generateKey, idempotencyKey } = options;
  if (!generateKey || !idempotencyKey || options.methods.has(upperMethod)) return undefined;
  if (headers(idempotencyKey)?.trim()) return undefined;
  const key = generateKey();
  if (typeof key !== 'string' || key.trim() === '' || /[\r\n\0]/.test(key)) {
    throw new TypeError(
      `jitterbug: option "idempotencyKey.generate" must return a non-empty header value, got ${String(key)}`,
    );
  }
  return key;
};

const URL_SCHEME = /^https?:\/\//i;

/** The features' edits of `next`, from `i` on, each once the one before it has settled. */
const featureEdits = (
  run: RetryRun,
  features: readonly RunFeature[],
  next: NextAttempt,
  i: number,
): unknown =>
  i < features.length
    ? after(features[i]!.edit!(run, next), () => featureEdits(run, features, next, i + 1))
    : undefined;

/**
 * Sets what the attempt about to be sent carries, when anything is to be set: `undefined` at once
 * when nothing is (nearly always), else a promise only when a feature's edit or `beforeRetry`
 * returned one. A hook that
 * throws or rejects has finished the run (`hook-failed`); its error goes on to the caller.
 */
export const editAttempt = (
  run: RetryRun,
  request: EditableRequest,
  kind: AttemptKind,
): void | Promise<void> => {
  const o = run.options;
  const policyHook = o.beforeRetry;
  const clientHook = request.beforeRetry;
  // The client's own hooks come after the policy's, once its promise (if any) has settled.
  const hooks =
    policyHook && clientHook
      ? (next: NextAttempt): unknown => after(policyHook(next), () => clientHook(next))
      : (policyHook ?? clientHook);
  // And the features' edits (a refreshed credential) before both.
  const { editing } = o;
  const hook =
    kind === 'first'
      ? undefined
      : editing.length === 0
        ? hooks
        : (next: NextAttempt): unknown => after(featureEdits(run, editing, next, 0), () => hooks?.(next));
  const key = kind === 'first' ? run.idempotencyKey : undefined;
  const names = o.attemptHeaders;
  if (!hook && !key && !names) return undefined;
  const headers = request.requestHeaders();
  if (key) headers.set(o.idempotencyKey as string, key);
  if (names?.attempt) headers.set(names.attempt, `attempt=${run.attempts + 1}; max=${o.maxAttempts}`);
  if (names?.deadline && o.deadlineMs !== undefined) {
    headers.set(names.deadline, String(Math.max(0, Math.floor(o.deadlineMs - run.elapsedMs()))));
  }
  if (!hook) return request.edit(request.requestUrl(), headers);
  const last = run.lastOutcome;
  const next: NextAttempt = {
    attempt: run.attempts + 1,
    kind: kind as NextAttempt['kind'],
    method: run.method,
    url: request.requestUrl(),
    headers,
    status: last?.status,
    responseHeaders: last?.responseHeaders,
    error: last?.error,
  };
  const apply = (): void | Promise<void> => {
    if (typeof next.url !== 'string' || !URL_SCHEME.test(next.url)) {
      throw new TypeError(
        `jitterbug: beforeRetry set the url to ${JSON.stringify(next.url)}: an absolute http: or https: URL is needed`,
      );
    }
    return request.edit(next.url, headers);
  };
  return after(run.hook(last?.status, hook, next), () => run.hook(last?.status, apply, next));
};
