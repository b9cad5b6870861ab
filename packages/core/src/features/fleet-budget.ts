/**
 * The fleet's retry budget: one token bucket in a shared store for every process of a service, so
 * that in an outage the fleet's retries stay within `burst + ratio × requests` as one process's do
 * (four processes with a budget each retry four bursts).
 *
 * A successful request never calls the store: it deposits `ratio` into a local tally, which is paid
 * with the next call. A retry spends a token of the process's lease; only when the lease is empty
 * does it ask the store (`budget.lease`: pay the tally, lease a token), and the ask runs while the
 * retry waits its backoff. The attempt is admitted once the store answered (a few ms at most, the
 * store's own timeout): granted, it goes; refused, the request fails with a
 * {@link FleetBudgetError}, its response having been let go for the retry. Once the store said the
 * bucket is empty, retries are refused at once for `EMPTY_MS` (the answer in hand, as a local
 * budget refuses), and the tally is paid with the next ask after that.
 *
 * When the store fails (any failure: a timeout, a pause, an error), the process decides alone for
 * `FALLBACK_MS`, from a local bucket that never holds more than the fleet's did when last seen: it
 * takes over without a burst, and hands back by asking again. So an outage of the store costs at
 * most one timeout per process per `FALLBACK_MS`.
 */
import type { Decision } from '../decide.ts';
import { checkFields, fail, numberCheck } from '../option-error.ts';
import { leaseBudget } from '../store/budget-lease.ts';
import type { SharedStore } from '../store/port.ts';
import type { RunView, Turn } from '../types.ts';
import { DEFAULT_BUDGET, EXHAUSTED, type RetryBudget, type RetryBudgetOptions, spends } from './budget.ts';
import type { RunFeature } from './feature.ts';

/** Options of the fleet's {@link createRetryBudget}. */
export interface FleetBudgetOptions extends RetryBudgetOptions {
  /** The store the fleet shares (`redisStore(url)`, a Durable Object's, `createMemoryStore()`). */
  readonly store: SharedStore;
  /** The budget's name in the store: processes that give the same name share one bucket. Default `"retry"`. */
  readonly name?: string;
  /** How long an idle bucket is kept in the store, in ms (past that it is full again). Default 10 min. */
  readonly idleMs?: number;
}

/**
 * The error a retry fails with when the fleet's budget is spent and the store said so only after
 * the retry was decided (its wait began): the response it retried was already let go.
 */
export class FleetBudgetError extends Error {
  /** Always `ERR_JITTERBUG_BUDGET`. */
  readonly code = 'ERR_JITTERBUG_BUDGET';
  constructor(name: string) {
    super(`jitterbug: the fleet's retry budget "${name}" is spent; this retry was not sent`);
    this.name = 'FleetBudgetError';
  }
}

/** After the store said the bucket is empty, retries are refused without asking for this long, in ms. */
const EMPTY_MS = 250;
/** After the store failed, the process decides alone for this long, in ms. */
const FALLBACK_MS = 1000;
/**
 * The longest an attempt waits for the store's answer, in ms: a backstop for a store that does not
 * time out its own calls (`redisStore` and the Durable Object's answer within their `timeoutMs`).
 */
const ANSWER_MS = 1000;

/** A retry's ask of the store: pending (`undefined`), or the token granted or refused. */
interface Ask {
  readonly since: number;
  granted: boolean | undefined;
}

const FIELDS = {
  ratio: numberCheck(0, 1),
  burst: numberCheck(1, 1e9),
  name: (v: unknown, n: string) => (typeof v === 'string' && v !== '' ? v : fail(n, 'a non-empty string', v)),
  idleMs: numberCheck(1, 30 * 24 * 3600 * 1000),
  store: (v: unknown, n: string) =>
    typeof v === 'object' && v !== null && typeof (v as SharedStore).run === 'function'
      ? v
      : fail(n, 'a SharedStore (redisStore(url), createMemoryStore(), …)', v),
};

/**
 * Creates the fleet's retry budget over `store`: `budget: createRetryBudget({ store })`, the same
 * budget in every process.
 *
 * @param options - `ratio` and `burst` as a local budget's, `store`, and the bucket's `name`.
 * @throws TypeError naming the option when a setting is invalid.
 */
export const createRetryBudget = (options: FleetBudgetOptions, optionPath = 'budget'): RetryBudget => {
  const { ratio, burst, name, idleMs, store } = checkFields(
    options,
    optionPath,
    { ...DEFAULT_BUDGET, name: 'retry', idleMs: 600_000, store: undefined },
    FIELDS,
  ) as Required<FleetBudgetOptions>;
  // Tokens leased and not spent; the deposits not yet paid; the local bucket for a failed store.
  let lease = 0;
  let owed = 0;
  let local = burst;
  let seen = burst;
  let emptyUntil = Number.NEGATIVE_INFINITY;
  let aloneUntil = Number.NEGATIVE_INFINITY;
  const asks = new WeakMap<RunView, Ask>();

  const withdrawLocally = (): boolean => {
    if (local < 1 - 1e-9) return false;
    local = Math.max(0, local - 1);
    return true;
  };

  const ask = (now: () => number): Ask => {
    const entry: Ask = { since: now(), granted: undefined };
    const deposit = owed;
    owed = 0;
    void leaseBudget(store, name, { deposit, want: 1, burst, ttlMs: idleMs }).then((reply) => {
      if (reply.ok) {
        seen = reply.value.tokens;
        local = Math.min(local, seen);
        entry.granted = reply.value.granted >= 1;
        if (!entry.granted) emptyUntil = now() + EMPTY_MS;
        return;
      }
      // A deposit that may have been applied (a timeout) is not paid twice.
      if (reply.failure !== 'timeout') owed += deposit;
      aloneUntil = now() + FALLBACK_MS;
      entry.granted = withdrawLocally();
    });
    return entry;
  };

  const feature: RunFeature = {
    begin: () => budget.deposit(),
    review(run, outcome, decision): Decision {
      if (!spends(run, outcome, decision)) return decision;
      if (lease >= 1) {
        lease--;
        return decision;
      }
      const now = run.options.now;
      const t = now();
      if (t < aloneUntil) return withdrawLocally() ? decision : EXHAUSTED;
      if (t < emptyUntil) return EXHAUSTED;
      asks.set(run, ask(now));
      return decision;
    },
    admit(run): Turn | undefined {
      const entry = asks.get(run);
      if (entry === undefined) return undefined;
      if (entry.granted === undefined) {
        if (run.options.now() - entry.since < ANSWER_MS) return { holdMs: 1 };
        // A store that answers neither within its timeout nor ours: decided here, its answer ignored.
        entry.granted = withdrawLocally();
      }
      asks.delete(run);
      return entry.granted ? undefined : { refuse: 'budget-exhausted', error: new FleetBudgetError(name) };
    },
    retrying(_run, event) {
      event.budgetTokens = budget.tokens;
    },
    finish(run) {
      // A token granted to a retry that was never sent goes back to the lease.
      const entry = asks.get(run);
      if (entry?.granted === true) lease++;
      asks.delete(run);
    },
  };

  const budget: RetryBudget & { readonly feature: RunFeature } = {
    get tokens() {
      return lease + seen;
    },
    ratio,
    burst,
    feature,
    deposit() {
      owed += ratio;
      local = Math.min(burst, local + ratio);
    },
    // For a caller of its own: the lease, else the local bucket (the store is asked by retries only).
    tryWithdraw() {
      if (lease < 1) return withdrawLocally();
      lease--;
      return true;
    },
  };
  return budget;
};
