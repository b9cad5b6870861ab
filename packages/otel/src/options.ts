/**
 * The options of `instrumentRetries`, and their validation: a mistake is a `TypeError` naming the
 * option when you call it, never a silent lack of telemetry later.
 */
import type { RetryBudget, RetryPolicy } from '@jitterbug/core';
import { isRetryBudget, isRetryPolicy } from '@jitterbug/core/adapter';
import { type MeterProvider, metrics } from '@opentelemetry/api';
import { fail, unknownOption } from './option-error.ts';

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

const KEYS = ['meterProvider', 'activeSpan', 'budgets'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates `options` and applies the defaults.
 *
 * @throws TypeError naming the option when one is invalid or unknown.
 */
export const resolveInstrumentOptions = (options: unknown): ResolvedInstrumentOptions => {
  if (options === undefined) options = {};
  if (!isObject(options)) return fail('options', 'an object', options);
  for (const key of Object.keys(options)) if (!KEYS.includes(key)) unknownOption(key);
  const { meterProvider = metrics.getMeterProvider(), activeSpan = true, budgets = {} } = options;
  if (typeof (meterProvider as MeterProvider | null)?.getMeter !== 'function') {
    return fail('meterProvider', 'a MeterProvider (with getMeter)', meterProvider);
  }
  if (typeof activeSpan !== 'boolean') return fail('activeSpan', 'a boolean', activeSpan);
  if (!isObject(budgets)) return fail('budgets', 'an object of RetryBudgets and policies by name', budgets);
  const named = Object.entries(budgets).map(([name, source]) =>
    isRetryBudget(source) || isRetryPolicy(source)
      ? ([name, source] as const)
      : fail(`budgets.${name}`, 'a RetryBudget or a retry policy', source),
  );
  return { meterProvider: meterProvider as MeterProvider, activeSpan, budgets: named };
};
