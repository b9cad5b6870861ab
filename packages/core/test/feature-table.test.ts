/**
 * The feature table (`features/table.ts`) is what validation, option resolution, the summary and
 * the README read: each row's option is taken where its scope says, resolves under
 * `options.feature`, is a layer in the table's order, fills in its summary field, and has its line
 * in the README's options table with its scope's marks and its factory.
 */
import { readFileSync } from 'node:fs';
import {
  createAdaptiveThrottle,
  createCredentialRefresh,
  createHedging,
  createPacer,
  createRetryPolicy,
} from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { ROUTE_KEYS } from '../src/create-retry-policy.ts';
import { type FeatureRow, FEATURES as ROWS } from '../src/features/table.ts';
import { CALL_KEYS, POLICY_KEYS } from '../src/validate.ts';
import { decideOn } from './decisions.ts';

// The rows as validation reads them (each row's literal type has only the fields it sets).
const FEATURES: readonly FeatureRow[] = ROWS;

const request = { method: 'GET', url: 'https://api.example.com/reports/1' };

describe('the feature table', () => {
  it.each(FEATURES.map((row) => [row.option, row] as const))(
    '%s is taken where its scope says',
    (option, { scope = 'call' }) => {
      expect(POLICY_KEYS.has(option)).toBe(true);
      expect(ROUTE_KEYS.has(option)).toBe(scope !== 'policy');
      expect(CALL_KEYS.has(option)).toBe(scope === 'call');
    },
  );

  it('resolves each feature under options.feature, and lays the layers out in its order', () => {
    const given = {
      credential: createCredentialRefresh({ refresh: () => 'token' }),
      pacer: createPacer(),
      throttle: createAdaptiveThrottle(),
      hedge: createHedging({ delayMs: 50 }),
    };
    const { options } = createRetryPolicy(given);
    for (const [option, value] of Object.entries(given)) {
      expect(options.feature[option as keyof typeof given]).toBe(value);
    }
    // The pacer replaces the herd line; the budget's layer wraps the policy's budget.
    expect(options.feature.herd).toBeDefined();
    expect(options.features).not.toContain(options.feature.herd);
    const order = FEATURES.map((row) => row.option);
    const layered = Object.keys(given).sort((a, b) => order.indexOf(a as never) - order.indexOf(b as never));
    expect(options.features.filter((f) => Object.values(given).includes(f as never))).toEqual(
      layered.map((option) => given[option as keyof typeof given]),
    );
    expect(options.features).toHaveLength(Object.keys(given).length + 1);
  });

  it("gives a run's summary every summary field of a row, filled in or undefined", () => {
    const run = createRetryPolicy().begin(request);
    decideOn(run, { status: 200 });
    for (const row of FEATURES.filter((r) => r.summary)) expect(run.summary).toHaveProperty(row.summary!);
  });

  it("is what the README's options table lists, with each feature's scope and factory", () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8').split('\n');
    for (const { option, scope = 'call', factory } of FEATURES) {
      const line = readme.find((l) => l.startsWith(`| \`${option}\` `));
      expect(line, option).toBeDefined();
      const marks = { policy: '', route: ' _R_', call: ' _RC_' }[scope];
      expect(line!.startsWith(`| \`${option}\`${marks} `), option).toBe(true);
      const name = factory.split('(')[0]!;
      if (name.startsWith('create') && option !== 'budget') expect(line, option).toContain(name);
    }
  });
});
