/** `instrumentRetries`' options: a mistake is a TypeError naming the option, and nothing is subscribed. */

import { channel } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createRetryBudget } from '@jitterbug/core';
import { CHANNELS } from '@jitterbug/core/diagnostics';
import { metrics } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { instrumentRetries } from '../src/index.ts';
import { VERSION } from '../src/version.ts';
import { createTelemetry } from './support/telemetry.ts';

const subscribed = (): string[] => Object.values(CHANNELS).filter((name) => channel(name).hasSubscribers);

describe('instrumentRetries options', () => {
  it.each([
    [null, 'jitterbug: option "options" must be an object, got null'],
    [[], 'jitterbug: option "options" must be an object, got []'],
    [
      { meterProvider: {} },
      'jitterbug: option "meterProvider" must be a MeterProvider (with getMeter), got {}',
    ],
    [
      { meterProvider: null },
      'jitterbug: option "meterProvider" must be a MeterProvider (with getMeter), got null',
    ],
    [{ activeSpan: 'yes' }, 'jitterbug: option "activeSpan" must be a boolean, got "yes"'],
    [
      { budgets: [] },
      'jitterbug: option "budgets" must be an object of RetryBudgets and policies by name, got []',
    ],
    [
      { budgets: { api: { ratio: 0.1 } } },
      'jitterbug: option "budgets.api" must be a RetryBudget or a retry policy, got {"ratio":0.1}',
    ],
    [{ tracerProvider: {} }, 'jitterbug: unknown option "tracerProvider"'],
  ])('%j: %s', (options, message) => {
    expect(() => instrumentRetries(options as never)).toThrow(new TypeError(message));
    expect(subscribed()).toEqual([]);
  });

  it('defaults to the global meter provider; reads a RetryBudget given by name', async () => {
    const telemetry = createTelemetry();
    metrics.setGlobalMeterProvider(telemetry.meterProvider);
    try {
      const budget = createRetryBudget({ burst: 4 });
      budget.tryWithdraw();
      const stop = instrumentRetries({ budgets: { search: budget } });
      expect(subscribed()).toEqual(Object.values(CHANNELS));
      expect(await telemetry.metrics()).toEqual([
        {
          name: 'jitterbug.budget.tokens',
          unit: '{token}',
          kind: 'gauge',
          points: [{ attributes: { 'jitterbug.budget.name': 'search' }, value: 3 }],
        },
      ]);
      stop();
      expect(subscribed()).toEqual([]);
    } finally {
      metrics.disable();
      await telemetry.shutdown();
    }
  });

  it('reports the package version as its instrumentation scope version', () => {
    const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(VERSION).toBe(manifest.version);
  });
});
