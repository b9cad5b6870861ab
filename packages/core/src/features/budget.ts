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
 */
import type { StopDecision } from '../decide.ts';
import { fail, fieldsOf, given, numberIn } from '../option-error.ts';
import type { RunFeature } from './feature.ts';

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
  /** The settings in force. */
  readonly ratio: number;
  readonly burst: number;
  /** Called once per request (not per attempt). */
  deposit(): void;
  /** Takes one token for a retry; `false` (and takes nothing) when fewer than one is left. */
  tryWithdraw(): boolean;
}

/** Default budget settings. */
export const DEFAULT_BUDGET = Object.freeze({ ratio: 0.1, burst: 10 });

/**
 * Creates a retry budget.
 *
 * @param options - see {@link RetryBudgetOptions}; `optionPath` names the option in error messages.
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createRetryBudget = (options: RetryBudgetOptions = {}, optionPath = 'budget'): RetryBudget => {
  if (typeof options !== 'object' || options === null)
    fail(optionPath, 'an object, false or a RetryBudget', options);
  const fields = fieldsOf(options, optionPath, ['ratio', 'burst']);
  const ratio = numberIn(given(fields.ratio, DEFAULT_BUDGET.ratio), `${optionPath}.ratio`, 0, 1);
  const burst = numberIn(given(fields.burst, DEFAULT_BUDGET.burst), `${optionPath}.burst`, 1, 1e9);
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

const EXHAUSTED: StopDecision = Object.freeze({ retry: false, reason: 'budget-exhausted', gaveUp: true });

/**
 * A budget as the run's feature: each request deposits as it begins, and each retry withdraws a
 * token or is refused. Made once per set of options, not per request.
 */
export const budgetFeature = (budget: RetryBudget): RunFeature => ({
  begin: () => budget.deposit(),
  review: (_run, _outcome, decision) => (!decision.retry || budget.tryWithdraw() ? decision : EXHAUSTED),
  retrying(_run, event) {
    event.budgetTokens = budget.tokens;
  },
});
