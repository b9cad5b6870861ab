/** The events published on node:diagnostics_channel, as a subscriber sees them. */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createRetryPolicy } from '@jitterbug/core';
import { CHANNELS } from '@jitterbug/core/diagnostics';
import { afterEach, describe, expect, it } from 'vitest';
import { beforeAttempt, decideOn, waitBetween } from './decisions.ts';
import { decided, fixed } from './helpers.ts';

const seen: [string, Record<string, unknown>][] = [];
const listeners = Object.entries(CHANNELS).map(([key, name]) => {
  const listener = (message: unknown) => seen.push([key, message as Record<string, unknown>]);
  return [name, listener] as const;
});

describe('diagnostics_channel events', () => {
  afterEach(() => {
    for (const [name, listener] of listeners) unsubscribe(name, listener);
    seen.length = 0;
  });

  it('a retried request: run start, attempts, the retry, run end — one run object throughout', async () => {
    for (const [name, listener] of listeners) subscribe(name, listener);
    const policy = createRetryPolicy({ random: fixed(0.5), budget: false });
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/a' });
    beforeAttempt(run);
    decided(decideOn(run, { status: 503 }));
    await waitBetween(run, 0);
    beforeAttempt(run);
    decided(decideOn(run, { status: 200 }));
    expect(seen.map(([key]) => key)).toEqual([
      'runStart',
      'attemptStart',
      'attemptEnd',
      'retry',
      'attemptStart',
      'attemptEnd',
      'runEnd',
    ]);
    expect(new Set(seen.map(([, m]) => m.run))).toEqual(new Set([run]));
    expect(seen[0]![1]).toMatchObject({ method: 'GET', url: 'https://api.example.com/a', route: undefined });
    expect(seen.filter(([key]) => key === 'attemptStart').map(([, m]) => m.attempt)).toEqual([1, 2]);
    expect(seen[2]![1]).toMatchObject({ attempt: 1, status: 503, error: undefined });
    expect(seen[3]![1]).toMatchObject({ attempt: 1, delayMs: 50, reason: 'status', status: 503 });
    expect(seen[6]![1]).toMatchObject({ info: { attempts: 2, reason: 'success' } });
  });

  it('a give-up and an error code', () => {
    for (const [name, listener] of listeners) subscribe(name, listener);
    const run = createRetryPolicy({ maxAttempts: 1 }).begin({ method: 'GET', url: 'https://x/' });
    const error = Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    decided(decideOn(run, { error }));
    expect(seen.find(([key]) => key === 'attemptEnd')?.[1]).toMatchObject({ errorCode: 'ECONNRESET', error });
    expect(seen.find(([key]) => key === 'giveUp')?.[1]).toMatchObject({ reason: 'max-attempts', run });
  });

  it('publishes nothing, and builds no message, without subscribers', () => {
    const run = createRetryPolicy().begin({ method: 'GET', url: 'https://x/' });
    beforeAttempt(run);
    decided(decideOn(run, { status: 200 }));
    expect(seen).toEqual([]);
  });
});
