/**
 * The attempt headers, from `createAttemptHeaders()`: every attempt (the first too) tells the
 * server which one it is, `attempt=2; max=3` in `amz-sdk-request` (the AWS SDK's header and form),
 * and, when `deadlineMs` is set, the ms left of it in `x-envoy-expected-rq-timeout-ms` (as Envoy
 * tells its upstreams), so that a server can shed retries first and log them as such. A factory, so
 * that a program that never sends them does not carry them.
 */
import { requestEditing } from '../attempt-edits.ts';
import { checkFields, fail, isHeaderName } from '../option-error.ts';
import type { RequestEditing, RunView } from '../types.ts';
import { branded, isFeature } from './feature.ts';

/** The names `createAttemptHeaders(names)` sends: each header's name, or `false` for none. */
export interface AttemptHeadersOptions {
  /** `attempt=N; max=M` on every attempt. Default `'amz-sdk-request'`. */
  readonly attempt?: string | false;
  /** The ms left of `deadlineMs`, when it is set. Default `'x-envoy-expected-rq-timeout-ms'`. */
  readonly deadline?: string | false;
}

/** What `createAttemptHeaders()` returns: the names, and what sets them on an attempt. */
export interface AttemptHeaders {
  /** The attempt header's name, or `false`. */
  readonly attempt: string | false;
  /** The deadline header's name, or `false`. */
  readonly deadline: string | false;
  /** Sets the headers of the attempt of `run` about to be sent. */
  set(headers: Headers, run: RunView): void;
  /** The edits that set them on a request (brought by this factory: see `createRequestEdits`). */
  readonly edits: RequestEditing;
}

/** The names `createAttemptHeaders()` sends. */
const NAMES = Object.freeze({ attempt: 'amz-sdk-request', deadline: 'x-envoy-expected-rq-timeout-ms' });

const nameOrFalse = (v: unknown, n: string): unknown =>
  v === false || isHeaderName(v) ? v : fail(n, 'a header name or false', v);

/**
 * Creates the attempt headers for the `attemptHeaders` option, with these names (`false` for none).
 *
 * @throws TypeError naming the field when a name is not a header name or `false`.
 */
export const createAttemptHeaders = (names?: AttemptHeadersOptions): AttemptHeaders => {
  const { attempt, deadline } = checkFields(names ?? {}, 'createAttemptHeaders(names)', NAMES, {
    attempt: nameOrFalse,
    deadline: nameOrFalse,
  }) as { attempt: string | false; deadline: string | false };
  return branded(
    {
      attempt,
      deadline,
      edits: requestEditing,
      set(headers: Headers, run: RunView) {
        const o = run.options;
        if (attempt) headers.set(attempt, `attempt=${run.attempts + 1}; max=${o.maxAttempts}`);
        if (deadline && o.deadlineMs !== undefined) {
          headers.set(deadline, String(Math.max(0, Math.floor(o.deadlineMs - run.elapsedMs()))));
        }
      },
    },
    'attemptHeaders',
  );
};

/** Whether `value` was made by {@link createAttemptHeaders}. */
export const isAttemptHeaders = (value: unknown): value is AttemptHeaders =>
  isFeature(value, 'attemptHeaders');

/** The `attemptHeaders` option, as the feature table's row puts it in the public options. */
export interface AttemptHeadersOption {
  /**
   * Tells the server which attempt this is, on every attempt (the first too), from
   * `createAttemptHeaders(names?)`: `attempt=2; max=3` in `amz-sdk-request` (the AWS SDK's header and
   * form), and, when `deadlineMs` is set, the ms left of it in `x-envoy-expected-rq-timeout-ms` (as
   * Envoy tells its upstreams), so that a server can shed retries first and log them as such; your
   * own names in `names` (`false` for none). Default `false`. A factory, so that a program that
   * never sends them does not carry them.
   */
  readonly attemptHeaders?: AttemptHeaders | false;
}
