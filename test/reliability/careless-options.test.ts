/**
 * Careless inputs, as a new user writes them (issue 27): each throws a `TypeError` that names the
 * option and says the fix — a peer library's option name gets its jitterbug equivalent, a typo the
 * closest real option, a real option in the wrong place where it goes, a function given for options
 * what was meant — and none of the mistakes that used to be accepted silently still is. These are the
 * development messages (Node resolves `#messages` to `messages/full.ts`).
 */

import { PassThrough } from 'node:stream';
import { attachRetry, createDiscardedBodyCap } from '@jitterbug/axios';
import {
  createAdaptiveThrottle,
  createHedging,
  createPacer,
  createResume,
  createRetryPolicy,
  DEFAULTS,
  type RetryOptions,
} from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { createForcedRetries, kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import ky from 'ky';
import * as undici8 from 'undici';
import { Agent } from 'undici';
import * as undici7 from 'undici7';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';

const api = () => axios.create();
const begin = (overrides: unknown) =>
  createRetryPolicy().begin({ method: 'GET', url: 'https://api.example.com/a' }, overrides as never);
const policy = (options: unknown) => createRetryPolicy(options as RetryOptions);

/** [what the user wrote, the call, the option the message names, the fix it must say]. */
const CARELESS: ReadonlyArray<readonly [string, () => unknown, string, string]> = [
  // A peer library's option: its jitterbug equivalent.
  [
    'retries: 3 (axios-retry, fetch-retry, p-retry)',
    () => policy({ retries: 3 }),
    'retries',
    'maxAttempts: 4',
  ],
  [
    'maxRetries: 2 (undici)',
    () => withRetry(fetch, { maxRetries: 2 } as never),
    'maxRetries',
    'maxAttempts: 3',
  ],
  ['limit: 2 (ky)', () => kyRetry({ limit: 2 } as never), 'limit', 'maxAttempts: 3'],
  ['retry: 2 (ky)', () => kyRetry({ retry: 2 } as never), 'retry', 'maxAttempts: 3'],
  [
    'retryDelay (axios-retry)',
    () => attachRetry(api(), { retryDelay: () => 100 } as never),
    'retryDelay',
    'backoff: { strategy, baseMs, capMs }',
  ],
  [
    'retryCondition (axios-retry)',
    () => attachRetry(api(), { retryCondition: () => true } as never),
    'retryCondition',
    'shouldRetry: (info) =>',
  ],
  [
    'retryOn (fetch-retry)',
    () => withRetry(fetch, { retryOn: [503] } as never),
    'retryOn',
    'statusCodes: [...]',
  ],
  ['backoffLimit (ky)', () => kyRetry({ backoffLimit: 5000 } as never), 'backoffLimit', 'backoff: { capMs }'],
  [
    'maxRetryAfter (ky)',
    () => kyRetry({ maxRetryAfter: 1000 } as never),
    'maxRetryAfter',
    'retryAfter: { maxMs }',
  ],
  [
    'timeout (ky, axios): the whole call',
    () => kyRetry({ timeout: 5000 } as never),
    'timeout',
    'attemptTimeoutMs bounds each attempt, deadlineMs the whole run',
  ],
  ['minTimeout (p-retry)', () => policy({ minTimeout: 100 }), 'minTimeout', 'backoff: { baseMs }'],
  ['maxRetryTime (p-retry)', () => policy({ maxRetryTime: 60_000 }), 'maxRetryTime', 'deadlineMs'],
  ['onFailedAttempt (p-retry)', () => policy({ onFailedAttempt: () => {} }), 'onFailedAttempt', 'onRetry'],
  [
    'onMaxRetryTimesExceeded (axios-retry)',
    () => attachRetry(api(), { onMaxRetryTimesExceeded: () => {} } as never),
    'onMaxRetryTimesExceeded',
    'onGiveUp',
  ],
  [
    'throwOnError (undici RetryHandler)',
    () => retryInterceptor({ throwOnError: true } as never),
    'throwOnError',
    'retryInterceptor(options, { throwOnRetryableStatus: true })',
  ],
  // A typo: the closest real option, whatever the case.
  ['maxAttempt', () => policy({ maxAttempt: 3 }), 'maxAttempt', 'did you mean "maxAttempts"?'],
  ['statuscodes', () => policy({ statuscodes: [503] }), 'statuscodes', 'did you mean "statusCodes"?'],
  [
    'statusCode (ky: retry.statusCodes)',
    () => kyRetry({ statusCode: [503] } as never),
    'statusCode',
    '"statusCodes"',
  ],
  ['method', () => policy({ method: ['GET'] }), 'method', 'did you mean "methods"?'],
  ['Methods', () => policy({ Methods: ['GET'] }), 'Methods', 'did you mean "methods"?'],
  ['retryMethods', () => policy({ retryMethods: ['GET'] }), 'retryMethods', 'did you mean "methods"?'],
  ['onretry', () => policy({ onretry: () => {} }), 'onretry', 'did you mean "onRetry"?'],
  ['deadline', () => policy({ deadline: 1000 }), 'deadline', 'did you mean "deadlineMs"?'],
  ['backoff.base', () => policy({ backoff: { base: 100 } }), 'backoff.base', 'did you mean "baseMs"?'],
  ['retryAfter.max', () => policy({ retryAfter: { max: 1000 } }), 'retryAfter.max', 'did you mean "maxMs"?'],
  [
    'a route rule: maxAttempt',
    () => policy({ routes: [{ match: '/a', maxAttempt: 2 }] }),
    'routes[0].maxAttempt',
    '"maxAttempts"',
  ],
  // A name of an earlier version: the name it has now.
  [
    'bufferStreamBytes (renamed)',
    () => withRetry(fetch, { bufferStreamBytes: 1024 } as never),
    'bufferStreamBytes',
    'renamed bufferStreamMaxBytes',
  ],
  [
    'knownLengthBodyBytes (renamed)',
    () => retryInterceptor({}, { knownLengthBodyBytes: 1024 } as never),
    'knownLengthBodyBytes',
    'renamed knownLengthBodyMaxBytes',
  ],
  [
    'capDiscardedBodies (renamed)',
    () => attachRetry(api(), {}, { capDiscardedBodies: {} } as never),
    'capDiscardedBodies',
    'renamed: attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })',
  ],
  [
    'createHedging({ maxAttempts }) (renamed)',
    () => createHedging({ delayMs: 10, maxAttempts: 2 } as never),
    'hedge.maxAttempts',
    'createHedging({ delayMs, maxCopies })',
  ],
  // A real option in the wrong place: where it goes.
  [
    'kyRetry({ forcedRetries: createForcedRetries() })',
    () => kyRetry({ forcedRetries: createForcedRetries() } as never),
    'forcedRetries',
    'kyRetry(options, { forcedRetries: createForcedRetries() })',
  ],
  [
    'attachRetry(api, { discardedBodyCap: createDiscardedBodyCap() })',
    () => attachRetry(api(), { discardedBodyCap: createDiscardedBodyCap() } as never),
    'discardedBodyCap',
    'attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })',
  ],
  [
    'retryInterceptor({ infoHeaders: true })',
    () => retryInterceptor({ infoHeaders: true } as never),
    'infoHeaders',
    'retryInterceptor(options, { infoHeaders })',
  ],
  [
    'kyRetry({}, { maxAttempts: 3 })',
    () => kyRetry({}, { maxAttempts: 3 } as never),
    'maxAttempts',
    "it goes with the retry policy's options: kyRetry({ maxAttempts }, adapterOptions)",
  ],
  [
    'retryInterceptor({}, { retryAfter: false })',
    () => retryInterceptor({}, { retryAfter: false } as never),
    'retryAfter',
    'retryInterceptor({ retryAfter }, adapterOptions)',
  ],
  [
    'attachRetry(api, {}, { maxAttempts: 3 })',
    () => attachRetry(api(), {}, { maxAttempts: 3 } as never),
    'maxAttempts',
    'attachRetry(instance, { maxAttempts }, adapterOptions)',
  ],
  [
    'a call: jitterbug: { pacer }',
    () => begin({ pacer: createPacer() }),
    'jitterbug.pacer',
    "set in a policy's options",
  ],
  [
    'a call: jitterbug: { throttle }',
    () => begin({ throttle: createAdaptiveThrottle() }),
    'jitterbug.throttle',
    "set in a policy's options",
  ],
  [
    'a call: jitterbug: { hedge }',
    () => begin({ hedge: createHedging({ delayMs: 10 }) }),
    'jitterbug.hedge',
    'in the options of a policy or of a route rule, not of one call',
  ],
  [
    'a call: jitterbug: { routes }',
    () => begin({ routes: [] }),
    'jitterbug.routes',
    'createRetryPolicy({ routes })',
  ],
  [
    'a call: jitterbug: { retry: false }',
    () => begin({ retry: false }),
    'jitterbug.retry',
    '(jitterbug: false)',
  ],
  [
    'a route rule: pacer',
    () => policy({ routes: [{ match: '/a', pacer: createPacer() }] }),
    'routes[0].pacer',
    "set in a policy's options",
  ],
  [
    "a method typo in a route: 'GTE /reports/*'",
    () => policy({ routes: [{ match: 'GTE /reports/*', maxAttempts: 5 }] }),
    'routes[0].match',
    'GTE is neither',
  ],
  [
    'cooldown (the pacer’s former name)',
    () => policy({ cooldown: createPacer() }),
    'cooldown',
    'pacer: createPacer()',
  ],
  [
    "backoff: 'exponential'",
    () => policy({ backoff: 'exponential' }),
    'backoff',
    'backoff: { strategy: "exponential" }',
  ],
  // Messages that read as they should (they said "an array of an integer from 100 to 599s").
  [
    'statusCodes: 503',
    () => policy({ statusCodes: 503 }),
    'statusCodes',
    'must be an array of integers from 100 to 599',
  ],
  [
    "methods: 'GET'",
    () => policy({ methods: 'GET' }),
    'methods',
    'must be an array of HTTP methods (tokens)',
  ],
  [
    "errorCodes: 'ECONNRESET'",
    () => policy({ errorCodes: 'ECONNRESET' }),
    'errorCodes',
    'must be an array of non-empty strings',
  ],
  // A function, or nothing, where options or an instance were meant.
  [
    'attachRetry()',
    () => (attachRetry as (...a: unknown[]) => unknown)(),
    'instance',
    'attachRetry(axios.create(), options)',
  ],
  [
    'attachRetry({ maxAttempts: 3 })',
    () => attachRetry({ maxAttempts: 3 } as never),
    'instance',
    'attachRetry takes the axios instance first',
  ],
  [
    'compose(retryInterceptor)',
    () => new Agent().compose(retryInterceptor as never),
    'options',
    'dispatcher.compose(retryInterceptor(options))',
  ],
  ['kyRetry(ky)', () => kyRetry(ky as never), 'options', 'ky.create({ ...kyRetry(options) })'],
  [
    'withRetry({ maxAttempts: 3 })',
    () => withRetry({ maxAttempts: 3 } as never),
    'fetch',
    'withRetry(fetch, options)',
  ],
  // Accepted silently before, doing nothing.
  [
    'withRetry(fetch, {}, { infoHeaders: true })',
    () => (withRetry as (...a: unknown[]) => unknown)(fetch, {}, { infoHeaders: true }),
    'adapterOptions',
    'withRetry(fetch, options) takes two arguments',
  ],
  [
    'attachRetry(api, { discardBodyMaxBytes }) without discardedBodyCap',
    () => attachRetry(api(), { discardBodyMaxBytes: 1024 }),
    'discardBodyMaxBytes',
    'attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })',
  ],
  [
    'attachRetry(api, { resume: createResume() })',
    () => attachRetry(api(), { resume: createResume() }),
    'resume',
    'axios reads each body whole before jitterbug hands it over, so there is nothing to resume',
  ],
];

describe('careless inputs: a TypeError that names the option and says the fix', () => {
  it.each(CARELESS)('%s', (_written, call, option, fix) => {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(new RegExp(`^jitterbug: (unknown )?option "${option.replace(/[[\].]/g, '\\$&')}"`));
    expect(call).toThrow(fix);
  });
});

describe('what these refusals leave alone', () => {
  it('a per-call hedge through axios rejects the request before anything is sent, saying where hedge goes', async () => {
    const instance = api();
    attachRetry(instance);
    const sent = instance.get('http://127.0.0.1:9/', {
      jitterbug: { hedge: createHedging({ delayMs: 5 }) } as never,
    });
    await expect(sent).rejects.toThrow(
      /^jitterbug: unknown option "jitterbug\.hedge" for a single call: hedging is set in the options of a policy or of a route rule/,
    );
  });

  it('a shared policy may carry resume and discardBodyMaxBytes for its fetch clients: attachRetry takes it', () => {
    const shared = createRetryPolicy({ resume: createResume(), discardBodyMaxBytes: 1024 });
    expect(() => attachRetry(api(), shared)).not.toThrow();
    expect(() => withRetry(fetch, shared)).not.toThrow();
  });

  it('discardBodyMaxBytes is taken with stream mode, and resume: false always', () => {
    expect(() =>
      attachRetry(api(), { discardBodyMaxBytes: 1024 }, { discardedBodyCap: createDiscardedBodyCap() }),
    ).not.toThrow();
    expect(() => attachRetry(api(), { resume: false })).not.toThrow();
  });

  it('withRetry takes a third argument that is undefined (a wrapper passing its arguments on)', () => {
    expect(() => (withRetry as (...a: unknown[]) => unknown)(fetch, {}, undefined)).not.toThrow();
  });

  it('retryAfter: true means the defaults, as retryAfter: false means none', () => {
    expect(policy({ retryAfter: true }).options.retryAfter).toEqual(DEFAULTS.retryAfter);
  });

  it('forcedRetries and infoHeaders where they belong are taken', () => {
    expect(() => kyRetry({}, { forcedRetries: createForcedRetries() })).not.toThrow();
    expect(() => retryInterceptor({}, { infoHeaders: true })).not.toThrow();
  });
});

describe('undici: an interceptor used as a dispatcher', () => {
  // What retryInterceptor() returns, where undici takes a dispatcher (issue 33): a TypeError saying
  // how to compose it, instead of undici's `this.dispatch is not a function` or `Argument agent
  // must implement Agent`, and before anything is sent (the server below sees no request).
  const COMPOSE = 'new Agent().compose(retryInterceptor(options))';
  const NOT_A_DISPATCHER = new RegExp(
    `^jitterbug: retryInterceptor\\(\\) returns an interceptor, not a dispatcher: compose it onto an agent, ${COMPOSE.replace(/[().]/g, '\\$&')}`,
  );
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());
  const url = () => `${server.url}/as-dispatcher`;
  const interceptor = () => retryInterceptor() as never;

  const AS_DISPATCHER: ReadonlyArray<readonly [string, () => unknown]> = [
    undici8,
    undici7 as unknown as typeof undici8,
  ].flatMap((u, i): Array<readonly [string, () => unknown]> => {
    const v = i === 0 ? 'undici 8' : 'undici 7';
    return [
      [
        `${v}: request(url, { dispatcher: retryInterceptor() })`,
        () => u.request(url(), { dispatcher: interceptor() }),
      ],
      [`${v}: setGlobalDispatcher(retryInterceptor())`, () => u.setGlobalDispatcher(interceptor())],
      [
        `${v}: new RetryAgent(retryInterceptor())`,
        () =>
          new u.RetryAgent(interceptor()).request({
            origin: server.url,
            path: '/as-dispatcher',
            method: 'GET',
          }),
      ],
      [
        `${v}: stream(url, { dispatcher: retryInterceptor() }, …)`,
        () => u.stream(url(), { dispatcher: interceptor(), method: 'GET' }, () => new PassThrough()),
      ],
    ];
  });

  it.each(AS_DISPATCHER)('%s', async (_written, call) => {
    // A sync throw (setGlobalDispatcher) or a rejection (request()), the same TypeError.
    const error = await (async () => call())().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(NOT_A_DISPATCHER);
    expect(server.seen('/as-dispatcher')).toHaveLength(0);
  });

  it.each([
    [
      'undici 8 fetch(url, { dispatcher: retryInterceptor() })',
      () => undici8.fetch(url(), { dispatcher: interceptor() }),
    ],
    [
      'undici 7 fetch(url, { dispatcher: retryInterceptor() })',
      () => undici7.fetch(url(), { dispatcher: interceptor() }),
    ],
    [
      'Node’s fetch(url, { dispatcher: retryInterceptor() })',
      () => fetch(url(), { dispatcher: interceptor() } as RequestInit),
    ],
  ])('%s: fetch’s TypeError, whose cause says how', async (_written, call) => {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e as Error & { cause?: Error },
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.cause).toBeInstanceOf(TypeError);
    expect(error?.cause?.message).toMatch(NOT_A_DISPATCHER);
    expect(server.seen('/as-dispatcher')).toHaveLength(0);
  });

  it.each([
    ['undici 8', undici8],
    ['undici 7', undici7 as unknown as typeof undici8],
  ])('%s: new Agent().compose(retryInterceptor), not called', (_v, u) => {
    const compose = () => new u.Agent().compose(retryInterceptor as never);
    expect(compose).toThrow(TypeError);
    expect(compose).toThrow('compose(retryInterceptor(options))');
  });

  it('composed as it should be, it is taken', () => {
    expect(() => new undici8.Agent().compose(retryInterceptor())).not.toThrow();
    expect(() => new undici7.Agent().compose(retryInterceptor() as never)).not.toThrow();
  });
});
