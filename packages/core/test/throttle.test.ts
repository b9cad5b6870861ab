/** Adaptive throttling through a policy: first attempts refused locally, retries not made. */
import {
  createAdaptiveThrottle,
  createRetryPolicy,
  type RetryOptions,
  ThrottledError,
} from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { beforeAttempt, decideOn } from './decisions.ts';
import { clock, decided } from './helpers.ts';

const setup = (options: RetryOptions = {}, draw = 0) => {
  const c = clock();
  const policy = createRetryPolicy({
    now: c.now,
    random: () => draw,
    sleep: async () => {},
    budget: false,
    ...options,
  });
  return { c, policy, begin: () => policy.begin({ method: 'GET', url: 'https://api.example.com/x' }) };
};

/** Runs `n` requests that each get `status` once (retries off), to feed the throttle. */
const feed = (
  begin: () => ReturnType<ReturnType<typeof createRetryPolicy>['begin']>,
  n: number,
  status: number,
) => {
  for (let i = 0; i < n; i++) {
    const run = begin();
    const held = beforeAttempt(run);
    if (held) {
      held.catch(() => undefined);
      continue;
    }
    decided(decideOn(run, { status }));
  }
};

describe('throttle', () => {
  it('is off by default: no request is ever refused locally', () => {
    const { policy, begin } = setup({ maxAttempts: 1 });
    expect(policy.options.feature.throttle).toBeUndefined();
    feed(begin, 50, 503);
    expect(beforeAttempt(begin())).toBeUndefined();
  });

  it('refuses first attempts locally once the server refuses most of them, with a ThrottledError', async () => {
    const throttle = createAdaptiveThrottle();
    const { c, begin } = setup({ throttle, maxAttempts: 1 }, 0);
    feed(begin, 30, 503);
    expect(throttle.rejectProbability(c.now())).toBeGreaterThan(0);
    const refused = begin();
    const held = beforeAttempt(refused);
    await expect(Promise.resolve(held)).rejects.toBeInstanceOf(ThrottledError);
    expect(refused.summary).toMatchObject({ attempts: 0, reason: 'throttled', outcome: 'failure' });
  });

  it('a refusal whose onGiveUp throws fails with the hook’s error; the run ends as hook-failed, once', async () => {
    const throttle = createAdaptiveThrottle();
    const broken = new Error('onGiveUp broke');
    const finished: unknown[] = [];
    const { begin } = setup(
      {
        throttle,
        maxAttempts: 1,
        onGiveUp: (event) => {
          if (event.reason === 'throttled') throw broken;
        },
        onFinish: (info) => finished.push(info),
      },
      0,
    );
    feed(begin, 30, 503);
    finished.length = 0;
    const refused = begin();
    await expect(Promise.resolve(beforeAttempt(refused))).rejects.toBe(broken);
    expect(refused.summary).toMatchObject({ attempts: 0, reason: 'hook-failed', outcome: 'failure' });
    expect(finished).toHaveLength(1);
  });

  it('lets every request through while the server accepts them', () => {
    const { begin } = setup({ throttle: createAdaptiveThrottle(), maxAttempts: 1 }, 0);
    feed(begin, 100, 200);
    expect(beforeAttempt(begin())).toBeUndefined();
  });

  it('a retry it refuses is not made: the run ends as throttled with the last answer', () => {
    const throttle = createAdaptiveThrottle();
    const { begin } = setup({ throttle, maxAttempts: 1 }, 0.999);
    feed(begin, 30, 503);
    const { begin: beginRetrying } = setup({ throttle, maxAttempts: 3 }, 0);
    const run = beginRetrying();
    // First attempts through (the draw is 0.999 above); the retry is drawn at 0: refused.
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({
      retry: false,
      reason: 'throttled',
      gaveUp: true,
    });
    expect(run.summary).toMatchObject({ status: 503, reason: 'throttled' });
  });

  it('createAdaptiveThrottle() takes the defaults; invalid settings are refused naming the option; not in routes or calls', () => {
    expect(createRetryPolicy({ throttle: createAdaptiveThrottle() }).options.feature.throttle).toMatchObject({
      k: 2,
      windowMs: 120_000,
    });
    expect(() => createAdaptiveThrottle({ k: 0 })).toThrow(/"throttle\.k"/);
    expect(() => createRetryPolicy({ throttle: 'on' as never })).toThrow(/"throttle"/);
    // The option takes what the factory made, so that a program without it does not carry its code.
    for (const given of [true, { k: 2 }]) {
      expect(() => createRetryPolicy({ throttle: given as never })).toThrow(
        /"throttle" must be false or what createAdaptiveThrottle\(\) returns/,
      );
    }
    expect(() =>
      createRetryPolicy().begin({ method: 'GET', url: 'https://x/' }, {
        throttle: createAdaptiveThrottle(),
      } as never),
    ).toThrow(/unknown option "jitterbug\.throttle"/);
  });
});
