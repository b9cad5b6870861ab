/** The origin-wide cooldown: one server's "come back later" holds every request of the policy to it. */
import { CooldownError, createCooldown, createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { isCooldown } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import { clock, decided, headers } from './helpers.ts';

const setup = (options: RetryOptions = {}) => {
  const c = clock();
  const waits: number[] = [];
  const policy = createRetryPolicy({
    now: c.now,
    random: () => 0.5,
    cooldown: createCooldown(),
    // Records the wait; the clock stays (a test moves it itself).
    sleep: async (ms, signal) => {
      waits.push(ms);
      if (signal?.aborted) throw signal.reason;
    },
    ...options,
  });
  const begin = (url = 'https://api.example.com/items') => policy.begin({ method: 'GET', url });
  return { c, waits, policy, begin };
};

const limited = (seconds: string) => ({ status: 429, headers: headers({ 'retry-after': seconds }) });

describe('cooldown', () => {
  it('a 429 with Retry-After holds later requests to the origin until then, in order, released with jitter', async () => {
    const { waits, begin } = setup();
    const first = begin();
    expect(first.beforeAttempt()).toBeUndefined();
    const decision = decided(first.next(limited('2')));
    expect(decision).toMatchObject({ retry: true, delaySource: 'retry-after' });
    const second = begin('https://api.example.com/other');
    const third = begin();
    const secondHeld = second.beforeAttempt();
    const thirdHeld = third.beforeAttempt();
    expect(secondHeld).toBeInstanceOf(Promise);
    expect(thirdHeld).toBeInstanceOf(Promise);
    await secondHeld;
    await thirdHeld;
    // Never before the 2 s the server asked for; the later request after the earlier one; within the
    // window of jitterRatio (0.1) of the hold, and after the request that got the 429 (its retry).
    const [held2, held3] = waits as [number, number];
    expect(held2).toBeGreaterThanOrEqual(2000);
    expect(held3).toBeGreaterThan(held2);
    expect(held3).toBeLessThanOrEqual(2200 + 2);
    expect(held2).toBeGreaterThan((decision as { delayMs: number }).delayMs);
  });

  it('other origins are not held; the request that got the 429 is not held again on its retry', () => {
    const { begin } = setup();
    const first = begin();
    decided(first.next(limited('2')));
    expect(begin('https://other.example.com/').beforeAttempt()).toBeUndefined();
    expect(first.beforeAttempt()).toBeUndefined();
  });

  it('a 503 with Retry-After holds too, a POST that is not retried still tells the origin to wait', () => {
    const { policy, begin } = setup();
    const post = policy.begin({ method: 'POST', url: 'https://api.example.com/pay' });
    expect(decided(post.next({ status: 503, headers: headers({ 'retry-after': '1' }) }))).toMatchObject({
      reason: 'method-not-idempotent',
    });
    expect(begin().beforeAttempt()).toBeInstanceOf(Promise);
  });

  it('a hold longer than retryAfter.maxMs fails at once with a CooldownError, reason retry-after-too-long', async () => {
    const giveUps: unknown[] = [];
    const { begin } = setup({ retryAfter: { maxMs: 5_000 }, onGiveUp: (e) => giveUps.push(e) });
    decided(begin().next(limited('3600')));
    const held = begin();
    const error = await Promise.resolve(held.beforeAttempt()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CooldownError);
    expect(error).toMatchObject({ code: 'ERR_JITTERBUG_COOLDOWN', origin: 'https://api.example.com' });
    expect(held.summary).toMatchObject({ attempts: 0, reason: 'retry-after-too-long', outcome: 'failure' });
    expect(giveUps.at(-1)).toMatchObject({ reason: 'retry-after-too-long' });
  });

  it("with whenLonger: 'cap', a hold longer than maxMs is cut to maxMs and the request is then sent", async () => {
    const { waits, begin } = setup({ retryAfter: { maxMs: 5_000, whenLonger: 'cap' } });
    decided(begin().next(limited('3600')));
    const held = begin();
    await held.beforeAttempt();
    expect(waits.at(-1)).toBe(5_000);
    // Waited for this hold (cut short): the next call sends.
    expect(held.beforeAttempt()).toBeUndefined();
  });

  it('a hold past the deadline fails at once with reason deadline', async () => {
    const { begin } = setup({ deadlineMs: 1_000 });
    decided(begin().next(limited('2')));
    const held = begin();
    await expect(Promise.resolve(held.beforeAttempt())).rejects.toBeInstanceOf(CooldownError);
    expect(held.summary).toMatchObject({ reason: 'deadline' });
  });

  it('the caller’s abort ends a hold at once, with its reason', async () => {
    const { begin } = setup();
    decided(begin().next(limited('2')));
    const held = begin();
    const controller = new AbortController();
    const reason = new Error('left');
    controller.abort(reason);
    await expect(Promise.resolve(held.beforeAttempt(controller.signal))).rejects.toBe(reason);
    expect(held.summary).toMatchObject({ reason: 'aborted', attempts: 0 });
  });

  it('cooldown: false turns it off; retryAfter: false too (the server delays are ignored)', () => {
    for (const options of [{ cooldown: false }, { retryAfter: false }] as const) {
      const { begin } = setup(options);
      decided(begin().next(limited('2')));
      expect(begin().beforeAttempt()).toBeUndefined();
    }
  });

  it('a Cooldown object is shared by the policies given it', () => {
    const cooldown = createCooldown();
    const a = setup({ cooldown });
    const b = setup({ cooldown });
    decided(a.begin().next(limited('2')));
    expect(b.begin().beforeAttempt()).toBeInstanceOf(Promise);
  });

  it('is refused in a route or a call, and when it is not false or a Cooldown', () => {
    expect(() => createRetryPolicy({ cooldown: 'yes' as never })).toThrow(/"cooldown"/);
    // `true` was the way to turn it on: the message says what replaced it.
    expect(() => createRetryPolicy({ cooldown: true as never })).toThrow(
      /"cooldown" must be false or what createCooldown\(\) returns, got true/,
    );
    // A look-alike is refused by name, not trusted until a request calls a method it lacks.
    const lookAlike = {
      active: false,
      hold() {},
      releaseAt: () => undefined,
      until: () => 0,
      admit: () => undefined,
      heed() {},
    };
    expect(() => createRetryPolicy({ cooldown: lookAlike })).toThrow(/"cooldown" must be false or what/);
    expect(isCooldown(createCooldown())).toBe(true);
    expect(isCooldown(lookAlike)).toBe(false);
    expect(() => createRetryPolicy({ routes: [{ match: '/x', cooldown: false } as never] })).toThrow(
      /unknown option "routes\[0\]\.cooldown"/,
    );
    expect(() =>
      createRetryPolicy().begin({ method: 'GET', url: 'https://x/' }, { cooldown: false } as never),
    ).toThrow(/unknown option "jitterbug\.cooldown"/);
  });

  it('ends once every release handed out has passed', () => {
    const { c, begin } = setup();
    decided(begin().next(limited('1')));
    c.advance(5_000);
    expect(begin().beforeAttempt()).toBeUndefined();
  });
});
