/**
 * `credential: createCredentialRefresh({ refresh })`: a request refused for its credential is sent
 * again once, at once, with a fresh one the core sets through the attempt's edits; the requests
 * refused with the same credential share one refresh; the retry takes no budget token and is not
 * counted in `maxAttempts`; refused again, the request ends.
 */
import { createCredentialRefresh, createRetryPolicy, type GiveUpEvent } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import type { EditableRequest } from '../src/attempt-edits.ts';
import type { RetryRun } from '../src/run.ts';
import { decideOn, editAttempt } from './decisions.ts';
import { decided, headers } from './helpers.ts';

const URL_A = 'https://api.example.com/me';

/** A request whose headers the attempt edits change, as an adapter's would. */
const editable = (initial: Record<string, string>) => {
  let sent = new Headers(initial);
  const request: EditableRequest = {
    requestHeaders: () => new Headers(sent),
    requestUrl: () => URL_A,
    edit: (_url, next) => {
      sent = next;
    },
  };
  return { request, header: (name: string) => sent.get(name) };
};

/** Begins a run with `authorization`, and a request it edits. */
const begin = (policy: ReturnType<typeof createRetryPolicy>, authorization = 'Bearer old') => {
  const { request, header } = editable({ authorization });
  const run = policy.begin({ method: 'GET', url: URL_A, headers: headers({ authorization }) });
  return { run, request, header };
};

/** Sets what the next retry carries (awaiting a refresh). */
const edit = (run: RetryRun, request: EditableRequest) => editAttempt(run, request, 'retry');

describe('createCredentialRefresh', () => {
  it('a 401 is sent again at once with the fresh credential, set in the header', async () => {
    let calls = 0;
    const credential = createCredentialRefresh({ refresh: async () => `Bearer new${++calls}` });
    const policy = createRetryPolicy({ credential });
    const { run, request, header } = begin(policy);
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({
      retry: true,
      reason: 'credential',
      delayMs: 0,
    });
    await edit(run, request);
    expect(header('authorization')).toBe('Bearer new1');
    expect(credential.current).toBe('Bearer new1');
    expect(decided(decideOn(run, { status: 200 }))).toMatchObject({ retry: false, reason: 'success' });
    expect(run.summary).toMatchObject({ attempts: 2, retries: ['credential'], outcome: 'success' });
  });

  it('the requests refused with the same credential share one refresh; one sent with an older one takes the current', async () => {
    let calls = 0;
    const stale: (string | undefined)[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({
        refresh: async (refusedWith) => {
          calls++;
          stale.push(refusedWith);
          await gate;
          return 'Bearer new';
        },
      }),
    });
    const requests = Array.from({ length: 20 }, () => begin(policy));
    for (const { run } of requests) decided(decideOn(run, { status: 401 }));
    const edits = requests.map(({ run, request }) => edit(run, request));
    release();
    await Promise.all(edits);
    expect(calls).toBe(1);
    for (const { header } of requests) expect(header('authorization')).toBe('Bearer new');
    // Refused after the refresh, with the credential it replaced: the current one, no refresh.
    const late = begin(policy);
    decided(decideOn(late.run, { status: 401 }));
    await edit(late.run, late.request);
    expect(calls).toBe(1);
    expect(late.header('authorization')).toBe('Bearer new');
    // The current credential refused: it expired in turn, and is refreshed.
    const next = begin(policy, 'Bearer new');
    decided(decideOn(next.run, { status: 401 }));
    await edit(next.run, next.request);
    expect(calls).toBe(2);
    // Each refresh was told the credential it replaces.
    expect(stale).toEqual(['Bearer old', 'Bearer new']);
  });

  it('takes no budget token and is not counted in maxAttempts', async () => {
    const policy = createRetryPolicy({
      maxAttempts: 3,
      credential: createCredentialRefresh({ refresh: () => 'Bearer new' }),
    });
    const budget = policy.options.feature.budget!;
    const { run, request } = begin(policy);
    decided(decideOn(run, { status: 503 }));
    decided(decideOn(run, { status: 503 }));
    const tokens = budget.tokens;
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({ retry: true, reason: 'credential' });
    await edit(run, request);
    expect(budget.tokens).toBe(tokens);
    // Three attempts counted (503, 503, 503): the credential's one was not.
    expect(decided(decideOn(run, { status: 503 }))).toMatchObject({ retry: false, reason: 'max-attempts' });
    expect(run.attempts).toBe(4);
  });

  it('refused again, the request ends at once: credential-refused, told to onGiveUp', async () => {
    const given: GiveUpEvent[] = [];
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({ refresh: () => 'Bearer new' }),
      // Even a hook that asks for every 401 again does not make a refreshed request go a third time.
      shouldRetry: ({ status }) => (status === 401 ? true : undefined),
      onGiveUp: (e) => void given.push(e),
    });
    const { run, request } = begin(policy);
    decided(decideOn(run, { status: 401 }));
    await edit(run, request);
    expect(decided(decideOn(run, { status: 401 }))).toMatchObject({
      retry: false,
      reason: 'credential-refused',
    });
    expect(given).toMatchObject([{ reason: 'credential-refused', status: 401, attempt: 2 }]);
    expect(run.summary).toMatchObject({ attempts: 2, outcome: 'failure', reason: 'credential-refused' });
  });

  it('any method (a 401 was not applied), but not a body that cannot be sent again, nor what shouldRetry refused', () => {
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({ refresh: () => 'Bearer new' }),
    });
    const post = policy.begin({ method: 'POST', url: URL_A, body: 'replayable' });
    expect(decided(decideOn(post, { status: 401 }))).toMatchObject({ retry: true, reason: 'credential' });
    const stream = policy.begin({ method: 'PUT', url: URL_A, body: 'stream' });
    expect(decided(decideOn(stream, { status: 401 }))).toMatchObject({ retry: false });
    const refused = createRetryPolicy({
      credential: createCredentialRefresh({ refresh: () => 'Bearer new' }),
      shouldRetry: () => false,
    }).begin({ method: 'GET', url: URL_A });
    expect(decided(decideOn(refused, { status: 401 }))).toMatchObject({
      retry: false,
      reason: 'should-retry',
    });
    const notStale = policy.begin({ method: 'GET', url: URL_A });
    expect(decided(decideOn(notStale, { status: 403 }))).toMatchObject({
      retry: false,
      reason: 'status-not-retryable',
    });
  });

  it('a refresh that rejects fails the waiting requests with its error (hook-failed); the next one tries again', async () => {
    const broken = new Error('token service down');
    let calls = 0;
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({
        refresh: async () => {
          calls++;
          if (calls === 1) throw broken;
          return 'Bearer new';
        },
        statusCodes: [401, 403],
      }),
    });
    const a = begin(policy);
    const b = begin(policy);
    decided(decideOn(a.run, { status: 401 }));
    decided(decideOn(b.run, { status: 403 }));
    await expect(edit(a.run, a.request)).rejects.toBe(broken);
    await expect(edit(b.run, b.request)).rejects.toBe(broken);
    expect(a.run.summary).toMatchObject({ reason: 'hook-failed', error: broken });
    const c = begin(policy);
    decided(decideOn(c.run, { status: 401 }));
    await edit(c.run, c.request);
    expect(calls).toBe(2);
    expect(c.header('authorization')).toBe('Bearer new');
  });

  it('a refresh that returns no header value fails the request with a TypeError naming it', async () => {
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({ refresh: () => 'Bearer a\r\nx: y' }),
    });
    const { run, request } = begin(policy);
    decided(decideOn(run, { status: 401 }));
    await expect(edit(run, request)).rejects.toThrow(
      /"credential\.refresh" must return a non-empty header value/,
    );
  });

  it('a header of your choosing', async () => {
    const policy = createRetryPolicy({
      credential: createCredentialRefresh({ refresh: () => 'key-2', header: 'X-Api-Key' }),
    });
    const { request, header } = editable({ 'x-api-key': 'key-1' });
    const run = policy.begin({ method: 'GET', url: URL_A, headers: headers({ 'x-api-key': 'key-1' }) });
    decided(decideOn(run, { status: 401 }));
    await edit(run, request);
    expect(header('x-api-key')).toBe('key-2');
  });

  it('refuses bad options, naming them', () => {
    expect(() => createCredentialRefresh({} as never)).toThrow(/"credential\.refresh" must be a function/);
    expect(() => createCredentialRefresh({ refresh: () => 'x', header: 'a b' })).toThrow(
      /"credential\.header"/,
    );
    expect(() => createCredentialRefresh({ refresh: () => 'x', statusCodes: [503] })).toThrow(
      /"credential\.statusCodes\[0\]" must be an integer from 400 to 499/,
    );
    expect(() => createCredentialRefresh({ refresh: () => 'x', statusCodes: [] })).toThrow(
      /"credential\.statusCodes"/,
    );
    expect(() => createCredentialRefresh({ refresh: () => 'x', status: [401] } as never)).toThrow(
      /unknown option "credential\.status"/,
    );
    expect(() => createRetryPolicy({ credential: { refresh: () => 'x' } as never })).toThrow(
      /"credential" must be false or what createCredentialRefresh\(\{ refresh \}\) returns/,
    );
  });
});
