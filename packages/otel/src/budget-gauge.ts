/**
 * `jitterbug.budget.tokens`: an asynchronous gauge that reads the tokens of the budgets you named
 * when the metrics are collected. Asynchronous because a budget changes with every request (each
 * deposits a share of a token), not only when a retry is decided: a gauge set from retry events
 * would stay at its lowest long after an outage ended.
 */
import type { RetryBudget, RetryPolicy } from '@jitterbug/core';
import { isRetryPolicy } from '@jitterbug/core/adapter';
import { type Attributes, type Meter, type ObservableResult, ValueType } from '@opentelemetry/api';
import { ATTRIBUTES, METRICS } from './names.ts';

interface Observed {
  readonly budget: RetryBudget;
  readonly attributes: Attributes;
}

/** Each budget to observe: a policy's own, then the routes' that have one of their own. */
const observedBudgets = (named: ReadonlyArray<readonly [string, RetryBudget | RetryPolicy]>): Observed[] => {
  const observed: Observed[] = [];
  for (const [name, source] of named) {
    if (!isRetryPolicy(source)) {
      observed.push({ budget: source, attributes: { [ATTRIBUTES.budgetName]: name } });
      continue;
    }
    const base = source.options.feature.budget;
    if (base) observed.push({ budget: base, attributes: { [ATTRIBUTES.budgetName]: name } });
    for (const route of source.routeOptions) {
      if (!route.feature.budget || route.feature.budget === base) continue;
      observed.push({
        budget: route.feature.budget,
        attributes: { [ATTRIBUTES.budgetName]: name, [ATTRIBUTES.route]: route.route ?? '' },
      });
    }
  }
  return observed;
};

/**
 * Starts observing the named budgets on `meter`; returns the function that stops (removes the
 * callback, so that the gauge reports nothing more). Observes nothing, and registers no callback,
 * when no budget is named.
 */
export const observeBudgets = (
  meter: Meter,
  named: ReadonlyArray<readonly [string, RetryBudget | RetryPolicy]>,
): (() => void) => {
  const observed = observedBudgets(named);
  if (observed.length === 0) return () => undefined;
  const gauge = meter.createObservableGauge(METRICS.budgetTokens, {
    description: 'Tokens left in a jitterbug retry budget (each retry takes one; each request adds a share).',
    unit: '{token}',
    valueType: ValueType.DOUBLE,
  });
  const callback = (result: ObservableResult): void => {
    for (const { budget, attributes } of observed) result.observe(budget.tokens, attributes);
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
};
