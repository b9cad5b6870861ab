/**
 * A credential refreshed once for every request refused with it: `credential:
 * createCredentialRefresh({ refresh })`. A request answered with one of its statuses (401 by
 * default) is sent again at once with a fresh credential, which the feature sets itself through the
 * attempt's edits; the requests refused with the same stale credential share one `refresh()`, and a
 * request sent with a credential older than the current one takes the current one, with no refresh
 * at all. 20 or 200 requests in flight when a token expires cost one refresh.
 *
 * Such a retry is the caller's credential put right, not a server failing: it takes no token of the
 * retry budget and is not counted in `maxAttempts` (a request makes at most one, so it costs a
 * request at most one attempt more). RFC 9110 says a 401's request "has not been applied", so it is
 * sent again whatever its method (a body that cannot be sent again is not). The refreshed request
 * refused again ends the request at once (`credential-refused`): a server that answers 401 to
 * everything costs each request two attempts. A `refresh()` that throws or rejects fails the
 * requests waiting for it with its error (`hook-failed`); the next request refused tries again.
 */
import { requestEditing } from '../attempt-edits.ts';
import type { StopDecision } from '../decide.ts';
import { after } from '../maybe-promise.ts';
import { fail, fieldsOf, given } from '../option-error.ts';
import type { RequestEditing, RunView } from '../types.ts';
import { branded, isFeature, perRun, type RunFeature } from './feature.ts';

/** Options of {@link createCredentialRefresh}. */
export interface CredentialRefreshOptions {
  /**
   * Makes a fresh credential: the header's whole new value (`Bearer eyJ…`), or a promise of it.
   * Given the value the request was refused with (`undefined` when it had none). Called once for
   * all the requests refused with the same credential; keep what it returns where your client
   * reads its credential from, so that new requests are sent with it.
   */
  readonly refresh: (stale: string | undefined) => string | PromiseLike<string>;
  /** The header that carries the credential. Default `'authorization'`. */
  readonly header?: string;
  /** The statuses that say the credential is stale: integers from 400 to 499. Default `[401]`. */
  readonly statusCodes?: readonly number[];
}

/** What {@link createCredentialRefresh} makes: a policy's (or several policies') credential. */
export interface CredentialRefresh extends RunFeature {
  /** The credential the last refresh made; `undefined` before the first. */
  readonly current: string | undefined;
  /** The edits that set the fresh credential on a retry (brought by this factory: see `createRequestEdits`). */
  readonly edits: RequestEditing;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const REFUSED: StopDecision = Object.freeze({ retry: false, reason: 'credential-refused', gaveUp: true });

const ignore = (): void => {};

/**
 * Creates a credential refresh for a policy's `credential` option: a request answered with one of
 * `statusCodes` is sent again once, at once, with the credential `refresh()` makes (one call for
 * every request refused with the same credential), set in `header`. Its retry takes no budget token
 * and is not counted in `maxAttempts`; refused again, the request ends (`credential-refused`).
 *
 * @throws TypeError naming the option when an option is invalid.
 */
export const createCredentialRefresh = (options: CredentialRefreshOptions): CredentialRefresh => {
  // Named as the option that takes it, as the other features' factories name theirs.
  const at = 'credential';
  const c = fieldsOf(options, at, ['refresh', 'header', 'statusCodes']);
  const refresh = c.refresh as CredentialRefreshOptions['refresh'];
  if (typeof refresh !== 'function') fail(`${at}.refresh`, 'a function', refresh);
  const header = given(c.header, 'authorization');
  if (typeof header !== 'string' || !TOKEN.test(header)) fail(`${at}.header`, 'a header name', header);
  const statusCodes = given(c.statusCodes, [401]);
  if (!Array.isArray(statusCodes) || statusCodes.length === 0) {
    fail(`${at}.statusCodes`, 'a non-empty array of integers from 400 to 499', statusCodes);
  }
  (statusCodes as unknown[]).forEach((s, i) => {
    if (!(Number.isInteger(s) && (s as number) >= 400 && (s as number) <= 499)) {
      fail(`${at}.statusCodes[${i}]`, 'an integer from 400 to 499', s);
    }
  });
  const name = (header as string).toLowerCase();
  const stale = new Set(statusCodes as number[]);
  let current: string | undefined;
  let pending: Promise<string> | undefined;
  // Per request: the credential its retry is to carry (until it is set), and whether it had one.
  const toSet = new WeakMap<RunView, string | Promise<string>>();
  const refreshed = new WeakSet<RunView>();
  // What a request was last sent with: the credential set here, else its own header.
  const sentWith = perRun<string>();

  const start = (refusedWith: string | undefined): Promise<string> => {
    const made = Promise.resolve()
      .then(() => refresh(refusedWith))
      .then((value) => {
        if (typeof value !== 'string' || value.trim() === '' || /[\r\n\0]/.test(value)) {
          throw new TypeError(
            `jitterbug: option "credential.refresh" must return a non-empty header value, got ${String(value)}`,
          );
        }
        current = value;
        return value;
      })
      .finally(() => {
        if (pending === made) pending = undefined;
      });
    // Its rejection is each waiting request's to handle, not unhandled meanwhile.
    made.catch(ignore);
    return made;
  };

  const feature: CredentialRefresh = {
    get current() {
      return current;
    },
    edits: requestEditing,

    review(run, outcome, decision) {
      const { status } = outcome;
      if (status === undefined || !stale.has(status)) return decision;
      // The fresh credential refused too: a refresh would not help.
      if (refreshed.has(run)) return REFUSED;
      const o = run.options;
      if (
        !o.retry ||
        outcome.verdict === false ||
        !outcome.bodyReplayable ||
        (o.deadlineMs !== undefined && !(outcome.elapsedMs <= o.deadlineMs))
      ) {
        return decision;
      }
      const sent = sentWith.get(run) ?? run.headers(name) ?? undefined;
      // A refresh under way serves every request refused meanwhile; a request sent with another
      // credential than the current one takes the current one; a request refused with the current
      // one (or with the first, when there is no current one yet) starts a refresh.
      if (!pending && (current === undefined || sent === current)) pending = start(sent);
      toSet.set(run, pending ?? (current as string));
      refreshed.add(run);
      return {
        retry: true,
        delayMs: 0,
        delaySource: 'forced',
        reason: 'credential',
        nextBackoffState: outcome.backoffState,
        uncounted: true,
      };
    },

    edit(run, next) {
      const credential = toSet.get(run);
      if (credential === undefined) return undefined;
      toSet.delete(run);
      return after(credential, (value) => {
        next.headers.set(name, value);
        sentWith.set(run, value);
      });
    },
  };
  return branded(feature, 'credential');
};

/** Whether a value was made by {@link createCredentialRefresh}. */
export const isCredentialRefresh = (value: unknown): value is CredentialRefresh =>
  isFeature(value, 'credential');

/** The `credential` option, as the feature table's row puts it in the public options. */
export interface CredentialOption {
  /**
   * A credential refreshed once for every request refused with it, from
   * `createCredentialRefresh({ refresh, header?, statusCodes? })`: a request answered 401 (or one
   * of `statusCodes`) is sent again at once with the credential `refresh()` makes, which it sets in
   * `header` (`authorization`); the requests refused with the same credential share one refresh, and
   * a request sent with an older credential than the last refresh's takes that one. That retry takes
   * no budget token, is not counted in `maxAttempts`, and is made once: refused again, the request
   * ends (`credential-refused`). Default `false`.
   */
  readonly credential?: CredentialRefresh | false;
}
