/**
 * The metrics one request to the scripted server should leave, stated briefly: its attempts, its
 * wait, its retries and give-ups by attributes. Builds the whole list `Telemetry.metrics()` returns
 * (sorted by name, instruments without points absent), so tests still compare everything.
 */
import type { Attributes } from '@opentelemetry/api';
import type { HistogramView, MetricView } from './telemetry.ts';

const ATTEMPT_BOUNDS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20];
const WAIT_BOUNDS = [0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** One value in a histogram with these bounds (the bucket is the first bound at or above it). */
const oneValue = (value: number, bounds: readonly number[]): HistogramView => ({
  count: 1,
  sum: value,
  buckets: [[bounds.find((b) => value <= b) ?? Number.POSITIVE_INFINITY, 1]],
});

export interface ExpectedRequest {
  /** `http.request.method`, `server.address`, `server.port` (and `jitterbug.route`) of the request. */
  readonly request: Attributes;
  readonly outcome: 'success' | 'failure';
  readonly attempts: number;
  /** Total wait, in ms. */
  readonly waitMs: number;
  /** `jitterbug.retries` points: their own attributes (added to the request's) and counts. */
  readonly retries?: readonly (readonly [Attributes, number])[];
  /** `jitterbug.give_ups` points, likewise. */
  readonly giveUps?: readonly (readonly [Attributes, number])[];
  /** `jitterbug.budget.tokens` points: attributes and tokens. */
  readonly budgets?: readonly (readonly [Attributes, number])[];
}

export const expectedMetrics = (e: ExpectedRequest): MetricView[] => {
  const ended = { ...e.request, 'jitterbug.outcome': e.outcome };
  const metrics: MetricView[] = [
    {
      name: 'jitterbug.request.attempts',
      unit: '{attempt}',
      kind: 'histogram',
      points: [{ attributes: ended, value: oneValue(e.attempts, ATTEMPT_BOUNDS) }],
    },
    {
      name: 'jitterbug.request.wait_time',
      unit: 's',
      kind: 'histogram',
      points: [{ attributes: ended, value: oneValue(e.waitMs / 1000, WAIT_BOUNDS) }],
    },
  ];
  const sum = (name: string, unit: string, points: readonly (readonly [Attributes, number])[] = []) => {
    if (points.length > 0) {
      metrics.push({
        name,
        unit,
        kind: 'sum',
        points: points.map(([attributes, value]) => ({ attributes: { ...e.request, ...attributes }, value })),
      });
    }
  };
  sum('jitterbug.retries', '{retry}', e.retries);
  sum('jitterbug.give_ups', '{request}', e.giveUps);
  if (e.budgets && e.budgets.length > 0) {
    metrics.push({
      name: 'jitterbug.budget.tokens',
      unit: '{token}',
      kind: 'gauge',
      points: e.budgets.map(([attributes, value]) => ({ attributes, value })),
    });
  }
  return metrics.sort((a, b) => a.name.localeCompare(b.name));
};
