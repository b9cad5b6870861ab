/**
 * What changes in a request between its attempts: a generated idempotency key (from the first
 * attempt on), the attempt headers (on every attempt, as `createAttemptHeaders()` sets them), and
 * what the features (a refreshed credential) and then `beforeRetry` set (before each retry, hedged
 * copy and resume). The core decides what to set; the adapter applies it to its client's request
 * through an {@link EditableRequest}. A bundle carries this file only through the factories whose
 * features edit a request ({@link requestEditing}: `createRequestEdits()`, the attempt headers,
 * generated keys, a credential refresh), or a client whose own hooks edit by default (ky's).
 */
import type { NextAttempt } from './events.ts';
import { after } from './maybe-promise.ts';
import type {
  AttemptEditor,
  AttemptKind,
  EditableRequest,
  EditedRun,
  EditingOptions,
  RequestEditing,
} from './types.ts';

export type { AttemptKind, EditableRequest, EditedRun, EditingOptions } from './types.ts';

const URL_SCHEME = /^https?:\/\//i;

/** Whether an attempt of `kind` is edited by a hook or a feature (see {@link attemptHook}). */
export const hasAttemptHook = (
  options: EditingOptions,
  request: Partial<EditableRequest> | undefined,
  kind: AttemptKind,
): boolean =>
  kind !== 'first' &&
  (options.beforeRetry !== undefined || request?.beforeRetry !== undefined || options.editing.length > 0);

/** The features' edits of `next`, from `i` on, each once the one before it has settled. */
const featureEdits = (
  run: EditedRun,
  features: readonly AttemptEditor[],
  next: NextAttempt,
  i: number,
): unknown =>
  i < features.length
    ? after(features[i]!.edit!(run, next), () => featureEdits(run, features, next, i + 1))
    : undefined;

/**
 * What edits an attempt of `kind`: the features' edits (a refreshed credential), then the policy's
 * `beforeRetry`, then the client's own, each once the promise before it (if any) has settled; none
 * for a first attempt.
 */
export const attemptHook = (
  run: EditedRun,
  request: Partial<EditableRequest> | undefined,
  kind: AttemptKind,
): ((next: NextAttempt) => unknown) | undefined => {
  if (kind === 'first') return undefined;
  const o = run.options;
  const policyHook = o.beforeRetry;
  const clientHook = request?.beforeRetry;
  const hooks =
    policyHook && clientHook
      ? (next: NextAttempt): unknown => after(policyHook(next), () => clientHook(next))
      : (policyHook ?? clientHook);
  const { editing } = o;
  return editing.length === 0
    ? hooks
    : (next: NextAttempt): unknown => after(featureEdits(run, editing, next, 0), () => hooks?.(next));
};

/**
 * The headers the attempt about to be sent carries, with the generated key and the attempt headers
 * set; `undefined` when nothing is to be set on it (nearly always).
 */
export const attemptHeaders = (
  run: EditedRun,
  request: EditableRequest,
  kind: AttemptKind,
): Headers | undefined => {
  const o = run.options;
  const key = kind === 'first' ? run.idempotencyKey : undefined;
  const told = o.feature.attemptHeaders;
  if (!key && !told && !hasAttemptHook(o, request, kind)) return undefined;
  const headers = request.requestHeaders();
  if (key) headers.set(o.idempotencyKey as string, key);
  told?.set(headers, run);
  return headers;
};

/** The attempt about to be sent, as `beforeRetry` sees it, with `headers` (those it is sent with). */
export const nextAttempt = (
  run: EditedRun,
  request: EditableRequest,
  kind: AttemptKind,
  headers: Headers,
): NextAttempt => {
  const last = run.lastOutcome;
  return {
    attempt: run.attempts + 1,
    kind: kind as NextAttempt['kind'],
    method: run.method,
    url: request.requestUrl(),
    headers,
    status: last?.status,
    responseHeaders: last?.responseHeaders,
    error: last?.error,
  };
};

/**
 * `hook` called with `next`, then what it set applied to `request` (a promise when the hook's is one,
 * or the edit's): the URL must stay an absolute `http:` or `https:` one. Throws (or rejects with)
 * what the hook throws, or a `TypeError` for a URL it set that cannot be sent to.
 */
export const editedAfter = (
  hook: (next: NextAttempt) => unknown,
  request: EditableRequest,
  next: NextAttempt,
): unknown =>
  after(hook(next), () => {
    if (typeof next.url !== 'string' || !URL_SCHEME.test(next.url)) {
      throw new TypeError(
        `jitterbug: beforeRetry set the url to ${JSON.stringify(next.url)}: an absolute http: or https: URL is needed`,
      );
    }
    return request.edit(next.url, next.headers);
  });

/**
 * Applies what the attempt of `kind` about to be sent carries to `request`: `undefined` when nothing
 * is to be set (nearly always), or a promise while that is prepared (a hook's). Throws (or rejects
 * with) what a hook throws; the caller decides what that failure ends.
 */
export const applyEdits = (run: EditedRun, request: EditableRequest, kind: AttemptKind): unknown => {
  const headers = attemptHeaders(run, request, kind);
  if (headers === undefined) return undefined;
  const hook = attemptHook(run, request, kind);
  if (!hook) return request.edit(request.requestUrl(), headers);
  return editedAfter(hook, request, nextAttempt(run, request, kind, headers));
};

/**
 * The edits, as the factories whose features edit a request bring them (`RequestEditing`): the
 * options of a run that has one of them carry it, and the attempt sequence applies it.
 */
export const requestEditing: RequestEditing = { apply: applyEdits, hooked: hasAttemptHook };
