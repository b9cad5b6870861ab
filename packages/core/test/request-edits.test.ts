/**
 * Request edits come from `createRequestEdits()`: off by default (no run carries the edits then),
 * `beforeRetry` without them refused with a `TypeError` naming the factory wherever it is set, and
 * the features that edit an attempt themselves (the attempt headers, generated keys, a credential
 * refresh) bringing the edits with their own factories. What each client sends with them (a fresh
 * token on the retry, a mirror host) is the conformance suite's; the production wording is the
 * careless-mistakes table's.
 */
import {
  createAttemptHeaders,
  createCredentialRefresh,
  createIdempotencyKeys,
  createRequestEdits,
  createRetryPolicy,
} from '@jitterbug/core';
import { describe, expect, it } from 'vitest';

const NEEDS = 'must be given with requestEdits: createRequestEdits()';
const hook = (): void => {};

describe('createRequestEdits', () => {
  it('is off by default: a run carries no edits', () => {
    expect(createRetryPolicy().options.feature.requestEdits).toBeUndefined();
    expect(createRetryPolicy().options.edits).toBeUndefined();
  });

  it('brings the edits, which beforeRetry then has', () => {
    const edits = createRequestEdits();
    const policy = createRetryPolicy({ requestEdits: edits, beforeRetry: hook });
    expect(policy.options.feature.requestEdits).toBe(edits);
    expect(policy.options.edits).toBe(edits.edits);
    expect(typeof policy.options.edits?.apply).toBe('function');
  });

  it.each([
    ['a policy', () => createRetryPolicy({ beforeRetry: hook }), 'beforeRetry'],
    [
      'a route rule',
      () => createRetryPolicy({ routes: [{ match: '/x', beforeRetry: hook }] }),
      'routes[0].beforeRetry',
    ],
    [
      'a call',
      () =>
        createRetryPolicy().begin({ method: 'GET', url: 'https://api.example.com/' }, { beforeRetry: hook }),
      'jitterbug.beforeRetry',
    ],
    [
      'a call that turns them off under a policy that has them',
      () =>
        createRetryPolicy({ requestEdits: createRequestEdits(), beforeRetry: hook }).begin(
          { method: 'GET', url: 'https://api.example.com/' },
          { requestEdits: false },
        ),
      'jitterbug.beforeRetry',
    ],
  ])('refuses beforeRetry without them, set in %s, naming the factory', (_, make, name) => {
    expect(make).toThrow(TypeError);
    expect(make).toThrow(`option "${name}" ${NEEDS}`);
  });

  it('takes them from the policy for a route rule’s or a call’s beforeRetry', () => {
    const policy = createRetryPolicy({
      requestEdits: createRequestEdits(),
      routes: [{ match: '/x', beforeRetry: hook }],
    });
    expect(policy.options.edits).toBeDefined();
    const run = policy.begin({ method: 'GET', url: 'https://api.example.com/' }, { beforeRetry: hook });
    expect(run.options.edits).toBe(policy.options.edits);
  });

  it('refuses a plain value where its object goes, and options it does not take', () => {
    expect(() => createRetryPolicy({ requestEdits: true as never })).toThrow(
      'option "requestEdits" must be false or what createRequestEdits() returns',
    );
    expect(() => (createRequestEdits as (o: unknown) => unknown)({ url: true })).toThrow(
      'option "createRequestEdits(options)" must be absent: createRequestEdits() takes none',
    );
  });

  it.each([
    ['the attempt headers', { attemptHeaders: createAttemptHeaders() }],
    ['generated keys', { idempotencyKey: createIdempotencyKeys() }],
    ['a credential refresh', { credential: createCredentialRefresh({ refresh: () => 'Bearer x' }) }],
  ])('comes with %s, which edit attempts themselves', (_, options) => {
    const { edits } = createRetryPolicy(options).options;
    expect(edits).toBe(createRequestEdits().edits);
    expect(() => createRetryPolicy({ ...options, beforeRetry: hook })).toThrow(NEEDS);
  });
});
