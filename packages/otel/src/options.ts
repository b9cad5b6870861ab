/**
 * The options of `instrumentRetries`, and their validation: a mistake is a `TypeError` naming the
 * option when you call it, never a silent lack of telemetry later.
 */
import type { RetryBudget, RetryPolicy } from '@jitterbug/core';
import { checkOptions, fail, isRetryBudget, isRetryPolicy } from '@jitterbug/core/adapter';
import { type MeterProvider, metrics } from '@opentelemetry/api';

/** Options of {@link instrumentRetries}. */
export interface InstrumentRetriesOptions {
  /**
   * Where the metrics go. Default: the global meter provider (`metrics.getMeterProvider()`, read
   * once, when `instrumentRetries` is called).
   */
  readonly meterProvider?: MeterProvider;
  /**
   * Annotate the span that is active when a request begins (your own span around the call): its
   * `http.request.resend_count` follows the resends, and it gets a `jitterbug.retry` event per
   * scheduled retry and a `jitterbug.give_up` event. Default `true`. Turn it off when the active span
   * is not one request's (a server span whose handler makes several calls): the events still name
   * the request, but one `resend_count` cannot describe several.
   */
  readonly activeSpan?: boolean;
  /**
   * Retry budgets to report in the `jitterbug.budget.tokens` gauge, by the name given as the
   * `jitterbug.budget.name` attribute: a `RetryBudget` (from `createRetryBudget`), or a policy (its
   * budget, and the budget of each route rule that has its own, with `jitterbug.route`). Default:
   * none (jitterbug's events do not say which budget a request draws on).
   */
  readonly budgets?: Readonly<Record<string, RetryBudget | RetryPolicy>>;
}

/** The options after validation and defaults. */
export interface ResolvedInstrumentOptions {
  readonly meterProvider: MeterProvider;
  readonly activeSpan: boolean;
  readonly budgets: ReadonlyArray<readonly [name: string, source: RetryBudget | RetryPolicy]>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const OPTIONS = {
  meterProvider: (v: unknown, n: string) =>
    typeof (v as MeterProvider | null)?.getMeter === 'function'
      ? (v as MeterProvider)
      : fail(n, 'a MeterProvider (with getMeter)', v),
  activeSpan: (v: unknown, n: string) => (typeof v === 'boolean' ? v : fail(n, 'a boolean', v)),
  budgets: (v: unknown, n: string) =>
    isObject(v)
      ? Object.entries(v).map(([name, source]) =>
          isRetryBudget(source) || isRetryPolicy(source)
            ? ([name, source] as const)
            : fail(`${n}.${name}`, 'a RetryBudget or a retry policy', source),
        )
      : fail(n, 'an object of RetryBudgets and policies by name', v),
};

/**
 * Validates `options` and applies the defaults.
 *
 * @throws TypeError naming the option when one is invalid or unknown.
 */
export const resolveInstrumentOptions = (options: unknown): ResolvedInstrumentOptions => {
  const checked = checkOptions(options, OPTIONS, 'instrumentRetries', 'options');
  return {
    meterProvider: checked.meterProvider ?? metrics.getMeterProvider(),
    activeSpan: checked.activeSpan ?? true,
    budgets: checked.budgets ?? [],
  };
};
