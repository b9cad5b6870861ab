/**
 * ky's `timeout` against `Retry-After` (issue 27): with ky's defaults and jitterbug's, a call whose
 * server asks for a wait longer than what is left of ky's timeout ends at once with ky's HTTPError
 * (`reason: 'deadline'`), and one whose wait fits gets the 200; never ky's TimeoutError after a wait
 * in vain. On ky 2 and ky 1, against a real loopback server; waits are recorded, not slept (but for
 * the defaults' own case, where no wait is started at all).
 */
import {
  createAttemptHeaders,
  createRetryPolicy,
  type RetryInfo,
  type RetryPolicyOrOptions,
} from '@jitterbug/core';
import type { Options } from 'ky';
import { afterEach, describe, expect, it } from 'vitest';
import { getRetryInfo, kyRetry } from '../src/index.ts';
import { errorOf, kys, loopback, recordingSleep } from './helpers.ts';

describe.each(kys)('%s', (name, ky) => {
  const major = name === 'ky 2' ? 2 : 1;
  const { server, newAgent } = loopback();
  const summaries: RetryInfo[] = [];

  const client = (policy: RetryPolicyOrOptions, kyOptions: Options = {}) =>
    ky.create({ ...kyRetry(policy), dispatcher: newAgent(), ...kyOptions } as Options);
  /** Options whose waits are recorded (`waits`), not slept. */
  const recorded = () => {
    const recorder = recordingSleep();
    const policy = { sleep: recorder.sleep, onFinish: (s: RetryInfo) => void summaries.push(s) };
    return { waits: recorder.waits, policy };
  };
  const url = (path: string) => server.url + path;
  const busy = (path: string, seconds: number) =>
    server.route(path, [
      { status: 503, headers: { 'retry-after': String(seconds) }, body: 'busy' },
      { status: 200, body: 'ok' },
    ]);
  const endsAtOnce = async (call: Promise<unknown>, path: string) => {
    const error = await errorOf(call);
    expect(error).toMatchObject({ name: 'HTTPError', response: { status: 503 } });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'deadline', totalDelayMs: 0 });
    expect(server.seen(path)).toHaveLength(1);
  };

  afterEach(() => {
    summaries.length = 0;
  });

  it('all defaults, Retry-After: 12 against ky’s 10 s: not waited for, ky’s HTTPError for the 503 at once', async () => {
    busy('/twelve', 12);
    await endsAtOnce(client({ onFinish: (s) => void summaries.push(s) }).get(url('/twelve')), '/twelve');
    expect(summaries).toMatchObject([{ reason: 'deadline', status: 503, outcome: 'failure' }]);
  });

  it('all defaults, Retry-After: 5: waited for, the 200', async () => {
    busy('/five', 5);
    const { waits, policy } = recorded();
    expect(await client(policy).get(url('/five')).text()).toBe('ok');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(5_000);
    expect(waits[0]).toBeLessThanOrEqual(5_500);
  });

  it('a call’s own timeout is its deadline: 3 s ends a Retry-After of 5 at once, lets one of 2 be waited for', async () => {
    busy('/per-call-5', 5);
    busy('/per-call-2', 2);
    const { waits, policy } = recorded();
    const api = client(policy);
    await endsAtOnce(api.get(url('/per-call-5'), { timeout: 3_000 }), '/per-call-5');
    expect(await api.get(url('/per-call-2'), { timeout: 3_000 }).text()).toBe('ok');
    expect(waits).toHaveLength(1);
  });

  it('timeout: false sets no deadline: a Retry-After of 12 is waited for', async () => {
    busy('/no-timeout', 12);
    const { waits, policy } = recorded();
    expect(await client(policy, { timeout: false }).get(url('/no-timeout')).text()).toBe('ok');
    expect(waits[0]).toBeGreaterThanOrEqual(12_000);
  });

  it('the policy’s deadlineMs, when sooner, stays: 2 s against ky’s 10 s ends a Retry-After of 5', async () => {
    busy('/policy-sooner', 5);
    await endsAtOnce(
      client({ ...recorded().policy, deadlineMs: 2_000 }).get(url('/policy-sooner')),
      '/policy-sooner',
    );
  });

  it('a longer timeout than ky’s default lets a longer wait through: 20 s and Retry-After: 12', async () => {
    busy('/longer', 12);
    const { waits, policy } = recorded();
    expect(await client(policy, { timeout: 20_000 }).get(url('/longer')).text()).toBe('ok');
    expect(waits).toHaveLength(1);
  });

  it('a shared policy (its deadline later or none) gets ky’s timeout per call', async () => {
    busy('/shared', 12);
    busy('/shared-later', 12);
    const { waits, policy } = recorded();
    await endsAtOnce(client(createRetryPolicy(policy)).get(url('/shared')), '/shared');
    const later = createRetryPolicy({ ...policy, deadlineMs: 60_000 });
    await endsAtOnce(client(later).get(url('/shared-later')), '/shared-later');
    expect(waits).toEqual([]);
  });

  it('the attempt headers tell the server the time left of ky’s timeout', async () => {
    server.route('/told', [{ status: 200 }]);
    await client({ attemptHeaders: createAttemptHeaders() }).get(url('/told'));
    const left = Number(server.seen('/told')[0]!.headers['x-envoy-expected-rq-timeout-ms']);
    expect(left).toBeGreaterThan(9_000);
    expect(left).toBeLessThanOrEqual(10_000);
  });

  it('a timeout an init hook of yours sets (ky 2) is the one read; ky 1 runs no init hook, and waits', async () => {
    busy('/init-timeout', 5);
    const { waits, policy } = recorded();
    const setTimeoutHook = (options: Options) => {
      options.timeout = 3_000;
    };
    const call = client(policy)
      .extend({ hooks: { init: [setTimeoutHook] } })
      .get(url('/init-timeout'));
    if (major === 2) await endsAtOnce(call, '/init-timeout');
    else expect(await call.text()).toBe('ok');
    expect(waits).toHaveLength(major === 2 ? 0 : 1);
  });

  it('totalTimeout (ky 2), when sooner, is the deadline: 4 s ends a Retry-After of 5; ky 1 has none, and waits', async () => {
    busy('/total', 5);
    const { waits, policy } = recorded();
    const call = client(policy, { totalTimeout: 4_000 } as Options).get(url('/total'));
    if (major === 2) await endsAtOnce(call, '/total');
    else expect(await call.text()).toBe('ok');
    expect(waits).toHaveLength(major === 2 ? 0 : 1);
  });
});
