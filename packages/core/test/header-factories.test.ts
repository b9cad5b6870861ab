/**
 * The attempt headers and generated idempotency keys come from factories: a plain value where the
 * factory's object goes is refused with what to write, and the factories check their own options.
 * What they set on the wire is the conformance suite's (`attemptHeaders`, `generated idempotency
 * keys`, on every client).
 */
import { createAttemptHeaders, createIdempotencyKeys, createRetryPolicy } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';

const headers =
  (values: Record<string, string> = {}) =>
  (name: string) =>
    values[name.toLowerCase()];

describe('createAttemptHeaders', () => {
  it.each([
    ['true', true],
    ['the names as a plain object', { attempt: 'x-attempt' }],
  ])('refuses %s where its object goes, telling what to write', (_, value) => {
    expect(() => createRetryPolicy({ attemptHeaders: value as never })).toThrow(
      /option "attemptHeaders" must be false or what createAttemptHeaders\(\) returns.*attemptHeaders: createAttemptHeaders\(/,
    );
  });

  it('takes its names, the defaults for those left out, false for none', () => {
    expect(createAttemptHeaders()).toMatchObject({
      attempt: 'amz-sdk-request',
      deadline: 'x-envoy-expected-rq-timeout-ms',
    });
    expect(createAttemptHeaders({ attempt: 'x-attempt', deadline: false })).toMatchObject({
      attempt: 'x-attempt',
      deadline: false,
    });
    const told = createAttemptHeaders();
    expect(createRetryPolicy({ attemptHeaders: told }).options.feature.attemptHeaders).toBe(told);
    expect(createRetryPolicy({ attemptHeaders: false }).options.feature.attemptHeaders).toBeUndefined();
  });

  it.each([
    [{ attempt: 'not a header' }, /"createAttemptHeaders\(names\)\.attempt" must be a header name or false/],
    [{ deadline: true }, /"createAttemptHeaders\(names\)\.deadline" must be a header name or false/],
    [{ atempt: 'x' }, /unknown option "createAttemptHeaders\(names\)\.atempt"/],
  ])('refuses names that are not header names: %j', (names, message) => {
    expect(() => createAttemptHeaders(names as never)).toThrow(message);
  });
});

describe('createIdempotencyKeys', () => {
  it.each([
    [
      '{ generate: true }',
      { generate: true },
      /idempotencyKey: createIdempotencyKeys\(\{ header\?, generate\? \}\)/,
    ],
    ['true', true, /"idempotencyKey" must be a header name, false or what createIdempotencyKeys\(\) returns/],
  ])('refuses %s where its object goes, telling what to write', (_, value, message) => {
    expect(() => createRetryPolicy({ idempotencyKey: value as never })).toThrow(message);
  });

  it('sets the header the method rule reads, and a header name given later turns generation off', () => {
    const keys = createIdempotencyKeys({ header: 'X-Request-Key', generate: () => 'k-1' });
    const policy = createRetryPolicy({
      idempotencyKey: keys,
      routes: [{ match: '/own', idempotencyKey: 'X-Own' }],
    });
    expect(policy.options.idempotencyKey).toBe('x-request-key');
    expect(policy.options.feature.idempotencyKey).toBe(keys);
    const route = policy.resolve('POST', 'https://api.example.com/own');
    expect(route.idempotencyKey).toBe('x-own');
    expect(route.feature.idempotencyKey).toBeUndefined();
  });

  it('makes a key for a method not retried by itself that carries none, with crypto.randomUUID() by default', () => {
    const { options } = createRetryPolicy({ idempotencyKey: createIdempotencyKeys() });
    const keys = options.feature.idempotencyKey!;
    expect(keys.key(options, 'POST', headers())).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys.key(options, 'GET', headers())).toBeUndefined();
    expect(keys.key(options, 'POST', headers({ 'idempotency-key': 'mine' }))).toBeUndefined();
  });

  it.each([
    [{ header: 'not a header' }, /"createIdempotencyKeys\(options\)\.header" must be a header name/],
    [{ generate: true }, /"createIdempotencyKeys\(options\)\.generate" must be a function/],
  ])('refuses options it cannot use: %j', (options, message) => {
    expect(() => createIdempotencyKeys(options as never)).toThrow(message);
  });

  it('refuses a key its generator makes that is no header value, naming generate', () => {
    const { options } = createRetryPolicy({
      idempotencyKey: createIdempotencyKeys({ generate: () => 'a\nb' }),
    });
    expect(() => options.feature.idempotencyKey!.key(options, 'POST', headers())).toThrow(
      /"createIdempotencyKeys\(options\)\.generate" must be a function returning a non-empty header value/,
    );
  });
});
