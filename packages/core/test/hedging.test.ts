/** The `hedge` option: what createHedging accepts, and where hedging may be set. */
import { createHedging, createRetryPolicy } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';

describe('hedge: the option', () => {
  it('invalid hedging is refused naming the option; options instead of createHedging(); a call cannot hedge', () => {
    expect(() => createRetryPolicy({ hedge: { delayMs: 10 } as never })).toThrow(
      /"hedge" must be false or what createHedging\(\{ delayMs \}\) returns/,
    );
    expect(() => createRetryPolicy({ routes: [{ match: '/x', hedge: { delayMs: 10 } as never }] })).toThrow(
      /"routes\[0\]\.hedge" must be false or what createHedging/,
    );
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: -1 }) })).toThrow(/"hedge\.delayMs"/);
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: 'p100' as never }) })).toThrow(
      /"hedge\.delayMs"/,
    );
    expect(() => createRetryPolicy({ hedge: createHedging({ delayMs: 10, maxCopies: 1 }) })).toThrow(
      /"hedge\.maxCopies"/,
    );
    // The name of earlier versions is refused with the new one.
    expect(() => createHedging({ delayMs: 10, maxAttempts: 2 } as never)).toThrow(
      /unknown option "hedge\.maxAttempts".*createHedging\(\{ delayMs, maxCopies \}\)/,
    );
    expect(() =>
      createRetryPolicy().begin({ method: 'GET', url: 'https://x/' }, {
        hedge: createHedging({ delayMs: 5 }),
      } as never),
    ).toThrow(/unknown option "jitterbug\.hedge"/);
  });
});
