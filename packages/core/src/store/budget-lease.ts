/**
 * The fleet's retry budget: one token bucket in the store, from which each process takes a lease of
 * a few tokens for local use, and into which it pays its deposits in batches. A process's requests
 * deposit into a local tally and its retries spend from its lease, both without the store; it calls
 * the store only when its lease is empty and a retry wants a token, paying what it owes in the same
 * call. So a successful request never waits for the store, and the fleet's retries stay within
 * `burst + ratio × requests` as one process's do (less what a process that stops holds unused).
 *
 * State `[tokens]`, a fresh bucket full (`burst`), as the local budget starts.
 * Arguments `[deposit, want, burst, ttlMs]`: `deposit` is what the process owes since its last call
 * (ratio × its requests, plus the leased tokens it hands back), `want` how many whole tokens it asks
 * for, `burst` the bucket's size (passed on every call, as redis-cell passes its limits: no settings
 * key to lose), `ttlMs` how long an idle bucket is kept (past that it is full again).
 * Result `[granted, tokens]`: the whole tokens leased (at most `want`), and what the bucket holds now.
 * No time is involved: the budget is deterministic, as the local one is.
 */
import type { SharedStore, StoreOperation, StoreResult } from './port.ts';
import { runOperation } from './run-operation.ts';

/** The retry budget's lease and deposit. */
export const BUDGET_LEASE: StoreOperation = {
  name: 'budget.lease',
  state: 'budget@1',
  results: 2,
  apply(state, [deposit = 0, want = 0, burst = 0, ttlMs = 0]) {
    const start = state?.length === 1 ? state[0]! : burst;
    const filled = Math.min(burst, Math.max(0, start) + Math.max(0, deposit));
    // The local budget's epsilon: ten deposits of 0.1 make one whole token despite floating point.
    const granted = Math.max(0, Math.min(Math.floor(want), Math.floor(filled + 1e-9)));
    const tokens = Math.max(0, filled - granted);
    return { state: [tokens], ttlMs, result: [granted, tokens] };
  },
  lua: `
  local deposit, want, burst, ttl = args[1], args[2], args[3], args[4]
  local start = burst
  if state and #state == 1 then start = state[1] end
  local filled = math.min(burst, math.max(0, start) + math.max(0, deposit))
  local granted = math.max(0, math.min(math.floor(want), math.floor(filled + 1e-9)))
  local tokens = math.max(0, filled - granted)
  return { tokens }, ttl, { granted, tokens }`,
};

/** What {@link leaseBudget} sends. */
export interface BudgetLeaseRequest {
  /** What the process owes: ratio × its requests since its last call, plus leased tokens it returns. */
  readonly deposit: number;
  /** Whole tokens wanted (0: only pay the deposit). */
  readonly want: number;
  /** The bucket's size. */
  readonly burst: number;
  /** How long an idle bucket is kept, in ms. */
  readonly ttlMs: number;
}

/** The store's answer to {@link leaseBudget}. */
export interface BudgetLease {
  /** Whole tokens leased, at most the ones wanted. */
  readonly granted: number;
  /** What the fleet's bucket holds now. */
  readonly tokens: number;
}

/** Pays a deposit into the fleet's budget of `scope` and leases up to `want` tokens from it. */
export const leaseBudget = (
  store: SharedStore,
  scope: string,
  request: BudgetLeaseRequest,
): Promise<StoreResult<BudgetLease>> =>
  runOperation(
    store,
    BUDGET_LEASE,
    scope,
    [request.deposit, request.want, request.burst, request.ttlMs],
    ([granted = 0, tokens = 0]) => ({ granted, tokens }),
  );
