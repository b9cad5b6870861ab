import { AttemptTimeoutError } from '@jitterbug/core';
import { type Decision, describeError, errorCode } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';
import {
  type AttemptOutcome,
  decide,
  decideByStatus,
  defaultRetry,
  methodAllowsRetry,
} from '../src/decide.ts';
import { fetchFailed, fixed, headers, outcome, resolved } from './helpers.ts';

const NOW = 1_700_000_000_000;
const stopReason = (d: Decision): string => (d.retry ? 'retry' : d.reason);

describe('x-should-retry: what the server says of its answer', () => {
  const said = (value: string) => headers({ 'x-should-retry': value });

  it('false: a status that is retried is not, and the run says the server declined', () => {
    expect(decide(outcome({ status: 503, responseHeaders: said('false') }), resolved())).toEqual({
      retry: false,
      reason: 'declined-by-server',
      gaveUp: true,
    });
    expect(decide(outcome({ status: 503, responseHeaders: said(' FALSE ') }), resolved()).retry).toBe(false);
  });

  it('true: a status >= 400 that is not retried is, within the method rule', () => {
    expect(decide(outcome({ status: 409, responseHeaders: said('true') }), resolved())).toMatchObject({
      retry: true,
      reason: 'status',
    });
    expect(
      decide(outcome({ status: 409, method: 'POST', responseHeaders: said('true') }), resolved()),
    ).toMatchObject({ retry: false, reason: 'method-not-idempotent' });
    // A success stays a success.
    expect(decide(outcome({ status: 200, responseHeaders: said('true') }), resolved())).toMatchObject({
      reason: 'success',
    });
  });

  it('anything else is not read; shouldRetry still decides last', () => {
    expect(decide(outcome({ status: 503, responseHeaders: said('maybe') }), resolved()).retry).toBe(true);
    expect(
      decide(outcome({ status: 503, responseHeaders: said('false'), verdict: true }), resolved()).retry,
    ).toBe(true);
  });
});

describe('decideByStatus: the short cut for statuses that settle a request', () => {
  it('settles successes that are not retried, as decide does', () => {
    const o = resolved();
    for (const status of [200, 204, 304]) {
      expect(decideByStatus(status, o)).toEqual(decide(outcome({ status }), o));
    }
  });

  it('leaves a failure to the full decision, whose headers may say x-should-retry', () => {
    const o = resolved();
    for (const status of [400, 404, 501]) {
      expect(decideByStatus(status, o)).toBeUndefined();
      expect(decide(outcome({ status }), o)).toEqual({
        retry: false,
        reason: 'status-not-retryable',
        gaveUp: false,
      });
    }
    // With retries off, a status that is not retried settles at once.
    expect(decideByStatus(404, { ...o, retry: false })).toMatchObject({ reason: 'route-disabled' });
  });

  it('leaves retried statuses, and a success when isFailure is set, to the full decision', () => {
    expect(decideByStatus(503, resolved())).toBeUndefined();
    expect(decideByStatus(200, resolved({ isFailure: () => undefined }))).toBeUndefined();
    // shouldRetry is asked about failures only: a success settles by its status.
    expect(decideByStatus(200, resolved({ shouldRetry: () => true }))).toMatchObject({ reason: 'success' });
    expect(decideByStatus(404, resolved({ shouldRetry: () => true }))).toBeUndefined();
  });

  it('reports a disabled route as the reason for a failed status, success as success', () => {
    const off = { ...resolved(), retry: false };
    expect(decideByStatus(404, off)).toEqual({ retry: false, reason: 'route-disabled', gaveUp: false });
    expect(decideByStatus(404, off)).toEqual(decide(outcome({ status: 404 }), off));
    expect(decideByStatus(200, off)).toEqual({ retry: false, reason: 'success', gaveUp: false });
    expect(decideByStatus(200, off)).toEqual(decide(outcome({ status: 200 }), off));
  });

  it('hands every request the same success and not-retryable decisions, which an adapter cannot change', () => {
    const o = resolved();
    const success = decideByStatus(200, o)!;
    const notRetryable = decide(outcome({ status: 404 }), o);
    // An adapter writing to one (the core README's own loop holds them) would change them for every
    // later request in the process: their reason, and the summary's.
    for (const shared of [success, notRetryable]) {
      expect(() => Object.assign(shared, { reason: 'changed' })).toThrow(TypeError);
    }
    expect(decideByStatus(204, o)).toEqual({ retry: false, reason: 'success', gaveUp: false });
    expect(decide(outcome({ status: 400 }), o)).toMatchObject({ reason: 'status-not-retryable' });
  });
});

describe('decide: statuses', () => {
  const o = resolved();

  it.each([408, 429, 500, 502, 503, 504])('retries %i on GET', (status) => {
    expect(decide(outcome({ status }), o).retry).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 422, 501, 505])('never retries %i', (status) => {
    expect(decide(outcome({ status }), o)).toEqual({
      retry: false,
      reason: 'status-not-retryable',
      gaveUp: false,
    });
  });

  it.each([200, 201, 204, 301, 304])('stops on %i as a success', (status) => {
    expect(decide(outcome({ status }), o)).toEqual({ retry: false, reason: 'success', gaveUp: false });
  });

  it('uses the configured statusCodes', () => {
    const custom = resolved({ statusCodes: [409] });
    expect(decide(outcome({ status: 409 }), custom).retry).toBe(true);
    expect(stopReason(decide(outcome({ status: 503 }), custom))).toBe('status-not-retryable');
  });
});

describe('decide: methods and idempotency', () => {
  const o = resolved();

  it.each(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY'])('retries %i', (method) => {
    expect(decide(outcome({ method }), o).retry).toBe(true);
  });

  it.each(['POST', 'PATCH', 'CONNECT'])('never retries %s on a status', (method) => {
    expect(decide(outcome({ method, status: 503 }), o)).toEqual({
      retry: false,
      reason: 'method-not-idempotent',
      gaveUp: true,
    });
  });

  it('never retries POST on a network error', () => {
    const d = decide(outcome({ method: 'POST', status: undefined, error: fetchFailed('ECONNRESET') }), o);
    expect(stopReason(d)).toBe('method-not-idempotent');
  });

  it('retries POST that carries an Idempotency-Key, on a status and on a network error', () => {
    const requestHeaders = headers({ 'Idempotency-Key': 'order-42' });
    expect(decide(outcome({ method: 'POST', requestHeaders }), o).retry).toBe(true);
    expect(
      decide(
        outcome({ method: 'POST', requestHeaders, status: undefined, error: fetchFailed('ECONNREFUSED') }),
        o,
      ).retry,
    ).toBe(true);
  });

  it('an empty or blank Idempotency-Key does not count', () => {
    for (const value of ['', '   ']) {
      const requestHeaders = headers({ 'Idempotency-Key': value });
      expect(decide(outcome({ method: 'POST', requestHeaders }), o).retry).toBe(false);
    }
  });

  it('a 4xx on POST with an idempotency key is still not retried', () => {
    const requestHeaders = headers({ 'Idempotency-Key': 'k' });
    expect(stopReason(decide(outcome({ method: 'POST', requestHeaders, status: 400 }), o))).toBe(
      'status-not-retryable',
    );
  });

  it('idempotencyKey: false turns the header off; a custom name is used instead', () => {
    const withKey = headers({ 'Idempotency-Key': 'k', 'X-Request-Id': 'r' });
    expect(
      decide(outcome({ method: 'POST', requestHeaders: withKey }), resolved({ idempotencyKey: false })).retry,
    ).toBe(false);
    const custom = resolved({ idempotencyKey: 'X-Request-Id' });
    expect(decide(outcome({ method: 'POST', requestHeaders: withKey }), custom).retry).toBe(true);
    expect(
      decide(outcome({ method: 'POST', requestHeaders: headers({ 'Idempotency-Key': 'k' }) }), custom).retry,
    ).toBe(false);
  });

  it('methods can be configured', () => {
    const o2 = resolved({ methods: ['POST'] });
    expect(decide(outcome({ method: 'POST' }), o2).retry).toBe(true);
    expect(stopReason(decide(outcome({ method: 'GET' }), o2))).toBe('method-not-idempotent');
  });

  it('methodAllowsRetry', () => {
    expect(methodAllowsRetry('GET', headers(), o)).toBe(true);
    expect(methodAllowsRetry('POST', headers(), o)).toBe(false);
    expect(methodAllowsRetry('POST', headers({ 'idempotency-key': 'x' }), o)).toBe(true);
  });
});

describe('decide: network errors', () => {
  const o = resolved();
  const errorOutcome = (error: unknown) => outcome({ status: undefined, responseHeaders: undefined, error });

  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'EPIPE',
    'ETIMEDOUT',
    'EAI_AGAIN',
    'UND_ERR_SOCKET',
    'UND_ERR_CONNECT_TIMEOUT',
  ])('retries %s, also inside a cause chain', (code) => {
    expect(decide(errorOutcome(Object.assign(new Error('x'), { code })), o).retry).toBe(true);
    expect(decide(errorOutcome(fetchFailed(code)), o).retry).toBe(true);
  });

  it("finds fetch's TypeError('fetch failed', { cause: { code } })", () => {
    const error = new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
    expect(errorCode(error)).toBe('ECONNRESET');
    expect(decide(errorOutcome(error), o).retry).toBe(true);
  });

  it('does not retry errors without a code, or non-errors; ENOTFOUND only transparently', () => {
    for (const error of [new Error('boom'), 'string', undefined, null, 42]) {
      expect(decide(errorOutcome(error), o)).toEqual({
        retry: false,
        reason: 'error-not-retryable',
        gaveUp: false,
      });
    }
    // No such host: the request provably never reached a server, so it is sent again transparently
    // (apart from maxAttempts) while `transparentRetries` lasts, and then not, ENOTFOUND not being in errorCodes.
    expect(decide(errorOutcome(fetchFailed('ENOTFOUND')), o)).toMatchObject({
      retry: true,
      reason: 'unprocessed',
    });
    expect(
      decide({ ...errorOutcome(fetchFailed('ENOTFOUND')), transparentRetries: 2, stalledRetries: 2 }, o),
    ).toEqual({
      retry: false,
      reason: 'error-not-retryable',
      gaveUp: false,
    });
  });

  it('transparent retries: transparentRetries in a row with no answer anywhere, ten times that while servers answer', () => {
    const refused = (extra: Partial<AttemptOutcome>) =>
      decide({ ...errorOutcome(fetchFailed('ECONNREFUSED')), method: 'POST', ...extra }, o);
    // A server that refuses everything: no answer in between, two in a row, then the error is the caller's.
    expect(refused({ transparentRetries: 1, stalledRetries: 1 })).toMatchObject({
      retry: true,
      reason: 'unprocessed',
    });
    expect(refused({ transparentRetries: 2, stalledRetries: 2 })).toMatchObject({
      retry: false,
      reason: 'method-not-idempotent',
    });
    // A server rotating its connections: others are answered meanwhile, so the request goes on, up to 20.
    expect(refused({ transparentRetries: 2, stalledRetries: 2, progressed: true })).toMatchObject({
      retry: true,
      reason: 'unprocessed',
    });
    expect(refused({ transparentRetries: 19, stalledRetries: 0, progressed: true })).toMatchObject({
      retry: true,
    });
    expect(refused({ transparentRetries: 20, stalledRetries: 0, progressed: true })).toMatchObject({
      retry: false,
    });
    // `transparentRetries: 0` turns them off, progress or not.
    const off = resolved({ transparentRetries: 0 });
    expect(decide({ ...errorOutcome(fetchFailed('ECONNREFUSED')), progressed: true }, off)).toMatchObject({
      retry: true,
      reason: 'error',
    });
    expect(
      decide({ ...errorOutcome(fetchFailed('ECONNREFUSED')), method: 'POST', progressed: true }, off),
    ).toMatchObject({ retry: false });
  });

  it('a transparent retry waits the backoff without moving it on', () => {
    const d = decide({ ...errorOutcome(fetchFailed('ECONNREFUSED')), method: 'POST' }, o);
    expect(d).toMatchObject({ retry: true, reason: 'unprocessed', nextBackoffState: { attempt: 0 } });
    const ordinary = decide(errorOutcome(fetchFailed('ECONNRESET')), o);
    expect(ordinary).toMatchObject({ retry: true, reason: 'error', nextBackoffState: { attempt: 1 } });
  });

  it('retries an attempt timeout', () => {
    expect(decide(errorOutcome(new AttemptTimeoutError(1000)), o).retry).toBe(true);
  });

  it('uses the configured errorCodes', () => {
    const o2 = resolved({ errorCodes: ['ENOTFOUND'] });
    expect(decide(errorOutcome(fetchFailed('ENOTFOUND')), o2).retry).toBe(true);
    expect(decide(errorOutcome(fetchFailed('ECONNRESET')), o2).retry).toBe(false);
  });

  it('errorCode follows at most 5 causes and survives cycles', () => {
    let deep: unknown = { code: 'ECONNRESET' };
    for (let i = 0; i < 5; i++) deep = { cause: deep };
    expect(errorCode(deep)).toBe('ECONNRESET');
    expect(errorCode({ cause: deep })).toBeUndefined();
    const cyclic: { cause?: unknown } = {};
    cyclic.cause = cyclic;
    expect(errorCode(cyclic)).toBeUndefined();
    expect(errorCode({ code: 42, cause: { code: 'EPIPE' } })).toBe('EPIPE');
  });

  it('describeError gives the code, else the name, else the type', () => {
    expect(describeError(fetchFailed('ECONNRESET'))).toBe('ECONNRESET');
    expect(describeError(new RangeError('x'))).toBe('RangeError');
    expect(describeError('oops')).toBe('string');
  });

  it('AttemptTimeoutError carries its code and timeout', () => {
    const error = new AttemptTimeoutError(250);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe('ERR_JITTERBUG_ATTEMPT_TIMEOUT');
    expect(error.timeoutMs).toBe(250);
    expect(error.name).toBe('AttemptTimeoutError');
  });
});

describe('decide: other stop reasons', () => {
  it('aborted wins over everything and is not a give-up', () => {
    expect(
      decide(outcome({ status: undefined, error: new Error('abort'), aborted: true }), resolved()),
    ).toEqual({
      retry: false,
      reason: 'aborted',
      gaveUp: false,
    });
  });

  it('a non-replayable body is a give-up', () => {
    expect(decide(outcome({ bodyReplayable: false }), resolved())).toEqual({
      retry: false,
      reason: 'body-not-replayable',
      gaveUp: true,
    });
  });

  it('max-attempts counts the first attempt', () => {
    const o = resolved({ maxAttempts: 3 });
    expect(decide(outcome({ attempt: 2 }), o).retry).toBe(true);
    expect(decide(outcome({ attempt: 3 }), o)).toEqual({
      retry: false,
      reason: 'max-attempts',
      gaveUp: true,
    });
    expect(stopReason(decide(outcome({ attempt: 1 }), resolved({ maxAttempts: 1 })))).toBe('max-attempts');
  });

  it('route-disabled', () => {
    const o = { ...resolved(), retry: false };
    expect(decide(outcome(), o)).toEqual({ retry: false, reason: 'route-disabled', gaveUp: true });
    expect(decide(outcome({ status: 200 }), o)).toEqual({ retry: false, reason: 'success', gaveUp: false });
  });

  it('deadline: a clock that returns NaN refuses the wait instead of allowing it', () => {
    const o = resolved({ deadlineMs: 1000 });
    expect(decide(outcome({ elapsedMs: Number.NaN }), o)).toMatchObject({ retry: false, reason: 'deadline' });
    expect(decide(outcome({ elapsedMs: Number.NaN }), resolved()).retry).toBe(true);
  });

  it('deadline: never starts a wait that would end past it', () => {
    const o = resolved({ deadlineMs: 1000, backoff: { strategy: 'constant', baseMs: 300 } });
    expect(decide(outcome({ elapsedMs: 700 }), o).retry).toBe(true); // ends at exactly 1000
    expect(decide(outcome({ elapsedMs: 701 }), o)).toEqual({
      retry: false,
      reason: 'deadline',
      gaveUp: true,
      refusedDelayMs: 300,
    });
  });
});

describe('decide: backoff', () => {
  it('uses the strategy with the injected random and returns its next state', () => {
    const o = resolved({ random: fixed(0.5) });
    const d = decide(outcome({ backoffState: { attempt: 2 } }), o);
    expect(d).toEqual({
      retry: true,
      delayMs: 200, // 0.5 * min(20000, 100 * 2^2)
      delaySource: 'backoff',
      serverDelayUnread: true, // the outcome's 503 gave no delay
      reason: 'status',
      nextBackoffState: { attempt: 3, prevMs: 200 },
    });
  });

  it('is pure: the same outcome gives the same decision', () => {
    const o = resolved({ random: fixed(0.3), backoff: { strategy: 'decorrelated' } });
    const input = outcome({ backoffState: { attempt: 1, prevMs: 500 } });
    expect(decide(input, o)).toEqual(decide(input, o));
  });
});

describe('decide: Retry-After and rate-limit headers', () => {
  const o = resolved({ random: fixed(0) });
  const withHeaders = (values: Record<string, string>, status = 503) =>
    outcome({ status, responseHeaders: headers(values), nowMs: NOW });

  it('honours Retry-After seconds on any retried status', () => {
    for (const status of [429, 503, 500]) {
      expect(decide(withHeaders({ 'Retry-After': '7' }, status), o)).toMatchObject({
        retry: true,
        delayMs: 7000,
        delaySource: 'retry-after',
      });
    }
  });

  it('does not advance the backoff state for a server delay', () => {
    const d = decide(
      outcome({ responseHeaders: headers({ 'Retry-After': '1' }), backoffState: { attempt: 4 } }),
      o,
    );
    expect(d).toMatchObject({ retry: true, nextBackoffState: { attempt: 4 } });
  });

  it('honours an HTTP-date, relative to now', () => {
    const date = new Date(NOW + 12_000).toUTCString();
    expect(decide(withHeaders({ 'Retry-After': date }), o)).toMatchObject({ delayMs: 12_000 });
  });

  it('a past HTTP-date means retry at once', () => {
    const date = new Date(NOW - 60_000).toUTCString();
    expect(decide(withHeaders({ 'Retry-After': date }), o)).toMatchObject({ retry: true, delayMs: 0 });
  });

  it('falls back to RateLimit-Reset, then X-RateLimit-Reset (epoch seconds)', () => {
    expect(decide(withHeaders({ 'RateLimit-Reset': '3' }), o)).toMatchObject({
      delayMs: 3000,
      delaySource: 'ratelimit-reset',
    });
    const epoch = String(Math.floor(NOW / 1000) + 20);
    expect(decide(withHeaders({ 'X-RateLimit-Reset': epoch }), o)).toMatchObject({
      delayMs: 20_000,
      delaySource: 'x-ratelimit-reset',
    });
    expect(decide(withHeaders({ 'Retry-After': '1', 'RateLimit-Reset': '3' }), o)).toMatchObject({
      delaySource: 'retry-after',
    });
  });

  it('an unparseable Retry-After is skipped, not trusted', () => {
    expect(decide(withHeaders({ 'Retry-After': 'soon', 'RateLimit-Reset': '2' }), o)).toMatchObject({
      delayMs: 2000,
      delaySource: 'ratelimit-reset',
    });
    expect(decide(withHeaders({ 'Retry-After': '-5' }), o)).toMatchObject({ delaySource: 'backoff' });
  });

  it('too long: gives up by default, with the refused delay', () => {
    expect(decide(withHeaders({ 'Retry-After': '61' }), o)).toEqual({
      retry: false,
      reason: 'retry-after-too-long',
      gaveUp: true,
      refusedDelayMs: 61_000,
    });
    expect(decide(withHeaders({ 'Retry-After': '60' }), o)).toMatchObject({ retry: true, delayMs: 60_000 });
  });

  it("too long with whenLonger: 'cap' waits maxMs (plus the jitter)", () => {
    const capped = resolved({
      random: fixed(0.999),
      retryAfter: { maxMs: 5000, whenLonger: 'cap', jitterRatio: 0 },
    });
    expect(decide(withHeaders({ 'Retry-After': '3600' }), capped)).toMatchObject({
      retry: true,
      delayMs: 5000,
    });
  });

  it('adds up to jitterRatio of the server delay, never past maxMs', () => {
    const jittered = resolved({ random: fixed(0.5), retryAfter: { jitterRatio: 0.2 } });
    expect(decide(withHeaders({ 'Retry-After': '10' }), jittered)).toMatchObject({ delayMs: 11_000 });
    const none = resolved({ random: fixed(0.999), retryAfter: { jitterRatio: 0 } });
    expect(decide(withHeaders({ 'Retry-After': '10' }), none)).toMatchObject({ delayMs: 10_000 });
    const nearMax = resolved({ random: fixed(0.999) });
    expect(decide(withHeaders({ 'Retry-After': '59' }), nearMax)).toMatchObject({ delayMs: 60_000 });
  });

  it("whenLonger: 'cap' spreads the capped waits below maxMs (they are sooner than told already)", () => {
    const capped = (r: number) =>
      decide(
        withHeaders({ 'Retry-After': '120' }),
        resolved({ random: fixed(r), retryAfter: { maxMs: 10_000, whenLonger: 'cap' } }),
      ) as { delayMs: number };
    expect([0, 0.3, 0.6, 0.9].map((r) => capped(r).delayMs)).toEqual([10_000, 9_700, 9_400, 9_100]);
  });

  it('a random source returning NaN, a negative number or more than 1 never shortens or breaks the wait', () => {
    for (const r of [Number.NaN, -50, -1, 2, Number.POSITIVE_INFINITY]) {
      const d = decide(withHeaders({ 'Retry-After': '2' }), resolved({ random: fixed(r) }));
      expect(d).toMatchObject({ retry: true, delaySource: 'retry-after' });
      const { delayMs } = d as { delayMs: number };
      expect(delayMs >= 2000 && delayMs <= 2200).toBe(true);
      const b = decide(outcome({ status: 503 }), resolved({ random: fixed(r) })) as { delayMs: number };
      expect(b.delayMs >= 0 && b.delayMs <= 100).toBe(true);
    }
  });

  it('retryAfter: false ignores the headers and uses backoff', () => {
    const off = resolved({ random: fixed(0.5), retryAfter: false });
    expect(decide(withHeaders({ 'Retry-After': '3600' }), off)).toMatchObject({
      retry: true,
      delayMs: 50,
      delaySource: 'backoff',
    });
  });

  it('Retry-After on a status that is not retried changes nothing', () => {
    expect(stopReason(decide(withHeaders({ 'Retry-After': '1' }, 404), o))).toBe('status-not-retryable');
  });

  it('the deadline applies to server delays too', () => {
    const d = decide(withHeaders({ 'Retry-After': '5' }), resolved({ random: fixed(0), deadlineMs: 4000 }));
    expect(d).toEqual({ retry: false, reason: 'deadline', gaveUp: true, refusedDelayMs: 5000 });
  });
});

describe('decide: shouldRetry', () => {
  it('undefined keeps the default decision', () => {
    const o = resolved({ shouldRetry: () => undefined });
    expect(decide(outcome(), o).retry).toBe(true);
    expect(stopReason(decide(outcome({ status: 404 }), o))).toBe('status-not-retryable');
  });

  it('a verdict of false stops with reason should-retry', () => {
    expect(decide(outcome({ verdict: false }), resolved({ shouldRetry: () => false }))).toEqual({
      retry: false,
      reason: 'should-retry',
      gaveUp: true,
    });
  });

  it('a verdict of true retries what would not be retried as forced, within the method rule, never a non-replayable body or past maxAttempts', () => {
    const o = resolved({ shouldRetry: () => true, maxAttempts: 2 });
    expect(decide(outcome({ status: 404, verdict: true }), o)).toMatchObject({
      retry: true,
      reason: 'forced',
    });
    // isFailure's true for a response below 400.
    expect(
      decide(outcome({ status: 200, verdict: true }), resolved({ isFailure: () => true })),
    ).toMatchObject({
      retry: true,
      reason: 'forced',
    });
    // A POST without a key is not retried, whatever the hook says; with a key it is.
    expect(decide(outcome({ method: 'POST', verdict: true }), o)).toEqual({
      retry: false,
      reason: 'method-not-idempotent',
      gaveUp: true,
    });
    expect(decide(outcome({ method: 'POST', status: 404, verdict: true }), o)).toMatchObject({
      reason: 'method-not-idempotent',
    });
    expect(
      decide(
        outcome({ method: 'POST', verdict: true, requestHeaders: headers({ 'idempotency-key': 'k1' }) }),
        o,
      ),
    ).toMatchObject({ retry: true, reason: 'status' });
    expect(decide(outcome({ verdict: true }), o)).toMatchObject({ retry: true, reason: 'status' });
    expect(stopReason(decide(outcome({ bodyReplayable: false, verdict: true }), o))).toBe(
      'body-not-replayable',
    );
    expect(stopReason(decide(outcome({ attempt: 2, verdict: true }), o))).toBe('max-attempts');
  });

  it('a forced retry (ky.retry()) is retried whatever the status and method, after the delay it gives or the policy one', () => {
    const o = resolved({ maxAttempts: 3 });
    expect(decide(outcome({ status: 200, method: 'POST', forced: { delayMs: 250 } }), o)).toEqual({
      retry: true,
      delayMs: 250,
      delaySource: 'forced',
      reason: 'forced',
      nextBackoffState: outcome().backoffState,
    });
    expect(decide(outcome({ status: 200, forced: {} }), o)).toMatchObject({
      retry: true,
      delaySource: 'backoff',
    });
    expect(decide(outcome({ status: 200, forced: {}, verdict: false }), o)).toMatchObject({ retry: true });
    expect(stopReason(decide(outcome({ status: 200, forced: {}, attempt: 3 }), o))).toBe('max-attempts');
  });

  it('defaultRetry, shown to shouldRetry, is what the decision would be without it', () => {
    const o = resolved();
    expect(defaultRetry(outcome({ method: 'POST', status: 503 }), o)).toBe(false);
    expect(defaultRetry(outcome({ status: 503 }), o)).toBe(true);
    expect(defaultRetry(outcome({ status: undefined, error: fetchFailed('ECONNRESET') }), o)).toBe(true);
    expect(defaultRetry(outcome({ status: 404 }), o)).toBe(false);
  });
});
