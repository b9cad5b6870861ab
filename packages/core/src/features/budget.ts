/**
 * A retry budget: a token bucket shared by every request of a policy, so that during an outage the
 * retries stop multiplying the load (the AWS SDK's retry quota and gRPC's retry throttling solve
 * the same problem).
 *
 * Every request deposits `ratio` tokens; every retry withdraws one; the bucket holds at most
 * `burst` tokens and starts full. So over any stretch of time
 * `retries <= burst + ratio × requests`: with the defaults (ratio 0.1, burst 10) a sustained outage
 * costs the server at most 1.1 attempts per request plus a one-off burst of 10, instead of
 * `maxAttempts` per request. Nothing needs resetting afterwards: new requests refill the bucket.
 * No clocks are involved, so the budget is deterministic under test.
 *
 * Two kinds of retry cost nothing, because they are not what the budget guards against (a client
 * multiplying the load on a server that is failing):
 * - a transparent retry of a request the server provably never processed (a refused connection, an
 *   HTTP/2 stream refused or above a GOAWAY's last stream): it reached no application, and a server
 *   that rotates its connections refuses many at once (gRPC's gRFC A6 keeps these outside its retry
 *   throttling too); the same for an answer whose `Proxy-Status` proves no intermediary sent the
 *   request on (`not-forwarded`), which reached no application either;
 * - the retry of a network failure made while the browser was offline (`offline`), sent once it is
 *   back online: no server saw the failed attempt;
 * - the retry of a keep-alive race (`stale-connection`): a connection kept from an earlier request
 *   that the server closed as the next one was written, while the policy's last answer was not a
 *   failure. The server is up and idle; one wave of such resets, when a server's idle timeout
 *   closes a client's pool, would otherwise empty the bucket and fail the next request that meets
 *   one (issue 36). During an outage (its answers are failures) a reset costs a token as before;
 * - the retry of a 429 at the time the server gave (`Retry-After` and the like): the server is up,
 *   it asked for the request again, and it chose when. A 503 with a delay still costs a token: during
 *   an outage that is every request, and the budget is what keeps the outage's load at 1.1×;
 * - once per request, a retry `shouldRetry` forced of a 4xx that is not retried by default (a 401, a
 *   403: the request was wrong, not the server), when a `beforeRetry` hook (the policy's, or the
 *   client's own, ky's) can change the request first: a credential refreshed, a request signed anew.
 *   A second such retry of the same request is charged as any: a server that answers 401 to
 *   everything is still bounded by the budget and `maxAttempts`. (A `credential:
 *   createCredentialRefresh()` retry never reaches the budget: it is the outermost feature.)
 */
import type { AttemptOutcome, Decision, StopDecision } from '../decide.ts';
import { checkFields, fail, numberCheck } from '../option-error.ts';
import type { RunView } from '../types.ts';
import type { RunFeature } from './feature.ts';
import { invited } from './invited.ts';

/** Options of {@link createRetryBudget}. */
export interface RetryBudgetOptions {
  /** Tokens each request deposits; the long-run ceiling of retries per request. Default 0.1. */
  readonly ratio?: number;
  /** Largest number of tokens (and so of back-to-back retries); also the initial fill. Default 10. */
  readonly burst?: number;
}

/** A retry budget. Share one instance between policies to give them one budget. */
export interface RetryBudget {
  /** Tokens left now. */
  readonly tokens: number;
  /** Tokens each request deposits (the settings in force). */
  readonly ratio: number;
  /** Largest number of tokens held. */
  readonly burst: number;
  /** Called once per request (not per attempt). */
  deposit(): void;
  /** Takes one token for a retry; `false` (and takes nothing) when fewer than one is left. */
  tryWithdraw(): boolean;
}

/** Default budget settings. */
export const DEFAULT_BUDGET = Object.freeze({ ratio: 0.1, burst: 10 });

const BUDGET_FIELDS = { ratio: numberCheck(0, 1), burst: numberCheck(1, 1e9) };

/**
 * Creates a retry budget.
 *
 * @param options - see {@link RetryBudgetOptions}; `optionPath` names the option in error messages.
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createRetryBudget = (options: RetryBudgetOptions = {}, optionPath = 'budget'): RetryBudget => {
  if (typeof options !== 'object' || options === null)
    fail(optionPath, 'an object, false or a RetryBudget', options);
  const { ratio, burst } = checkFields(
    options,
    optionPath,
    DEFAULT_BUDGET,
    BUDGET_FIELDS,
  ) as Required<RetryBudgetOptions>;
  let tokens = burst;
  return {
    get tokens() {
      return tokens;
    },
    ratio,
    burst,
    deposit() {
      tokens = Math.min(burst, tokens + ratio);
    },
    tryWithdraw() {
      // A tiny epsilon: ten deposits of 0.1 must make one whole token despite floating point.
      if (tokens < 1 - 1e-9) return false;
      tokens = Math.max(0, tokens - 1);
      return true;
    },
  };
};

/** Whether a value is a {@link RetryBudget} (rather than budget options). */
export const isRetryBudget = (value: unknown): value is RetryBudget =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RetryBudget).tryWithdraw === 'function' &&
  typeof (value as RetryBudget).deposit === 'function';

export const EXHAUSTED: StopDecision = Object.freeze({
  retry: false,
  reason: 'budget-exhausted',
  gaveUp: true,
});

/** Requests that had their one retry free of the budget for a hook's fix. */
const fixedByHook = new WeakSet<RunView>();

/**
 * Whether this retry is the request's first that `shouldRetry` forced of a 4xx the default does not
 * retry, with a `beforeRetry` hook to change the request first (see the module's comment).
 */
const hookFix = (run: RunView, { status, verdict }: AttemptOutcome, decision: Decision): boolean => {
  const o = run.options;
  if (
    decision.retry &&
    decision.reason === 'forced' &&
    verdict === true &&
    status !== undefined &&
    status >= 400 &&
    status < 500 &&
    !o.statusCodes.has(status) &&
    (o.beforeRetry !== undefined || run.retryHooks) &&
    !fixedByHook.has(run)
  ) {
    fixedByHook.add(run);
    return true;
  }
  return false;
};

/**
 * Whether a retry decision takes a budget token: a stop takes none, nor a retry free of the budget
 * (see the module's comment). Shared with the fleet's budget (`fleet-budget.ts`).
 */
export const spends = (run: RunView, outcome: AttemptOutcome, decision: Decision): boolean =>
  decision.retry &&
  decision.reason !== 'unprocessed' &&
  decision.reason !== 'not-forwarded' &&
  decision.reason !== 'offline' &&
  decision.reason !== 'stale-connection' &&
  !invited(outcome, decision) &&
  !hookFix(run, outcome, decision);

/**
 * A budget as the run's feature: each request deposits as it begins, and each retry withdraws a
 * token or is refused. Made once per set of options, not per request. A budget that is a feature
 * of its own (the fleet's, which asks its store) is its own layer.
 */
export const budgetFeature = (budget: RetryBudget): RunFeature =>
  (budget as { feature?: RunFeature }).feature ?? {
    begin: () => budget.deposit(),
    review: (run, outcome, decision) =>
      !spends(run, outcome, decision) || budget.tryWithdraw() ? decision : EXHAUSTED,
    retrying(_run, event) {
      event.budgetTokens = budget.tokens;
    },
  };

/** The `budget` option, as the feature table's row puts it in the public options. */
export interface BudgetOption {
  /** A budget for this route instead of the policy's; `false` for none. */
  readonly budget?: RetryBudgetOptions | RetryBudget | false;
}
