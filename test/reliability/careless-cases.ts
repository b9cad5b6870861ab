/**
 * Careless inputs of issue 33's kinds, as a table that runs as it is in Node (the development
 * messages: `#messages` is `messages/full.ts`) and bundled for a browser (`messages/short.ts`, what a
 * production bundle says): `careless-mistakes.test.ts` runs both. Each refusal names the option in
 * both builds, says the fix in development, and is worded exactly in production; each "right" case
 * is a real exchange with a server whose log tells what was sent. Nothing here may import a
 * Node-only module: the browser build bundles this file.
 */
import { attachRetry, createDiscardedBodyCap } from '@jitterbug/axios';
import {
  createHedging,
  createPacer,
  createRequestEdits,
  createResume,
  createRetryPolicy,
  type RetryOptions,
  type RetryPolicy,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { withRetry } from '@jitterbug/fetch';
import { createForcedRetries, kyRetry } from '@jitterbug/ky';
import axios from 'axios';
import ky from 'ky';

/** The test server, as a case sees it (in a browser build too: through these functions). */
export interface Server {
  readonly url: string;
  /** Answers every request to `path` with these statuses, in turn (the last one repeated). */
  route(path: string, statuses: readonly number[]): void;
  /** How many requests reached `path`. */
  seen(path: string): number;
}

/** A mistake refused with a `TypeError` (thrown, or a rejection before anything is sent). */
export interface Refusal {
  readonly kind: string;
  readonly written: string;
  readonly call: (server: Server) => unknown;
  /** The option the message names (`jitterbug: option "…"` or `jitterbug: unknown option "…"`). */
  readonly option: string;
  /** What the development message says of the fix. */
  readonly fix: string;
  /** The whole production message. */
  readonly short: string;
  /** The path a call would have gone to (nothing may reach it). */
  readonly path?: string;
}

/** A mistake that does what was meant: the requests the server saw for `path`. */
export interface Right {
  readonly kind: string;
  readonly written: string;
  readonly path: string;
  readonly statuses: readonly number[];
  readonly send: (server: Server) => Promise<unknown>;
  readonly sent: number;
}

const quick = { random: () => 0.5, sleep: async () => {}, budget: false } as const;
const policy = (options: unknown): RetryPolicy => createRetryPolicy(options as RetryPolicyOptions);
const api = () => axios.create();
const nothing = () => {};

/** Every entry point that takes a policy's options, so that each name is tried through all of them. */
export const ENTRY_POINTS: readonly (readonly [string, (options: unknown) => unknown])[] = [
  ['createRetryPolicy', (o) => policy(o)],
  ['withRetry', (o) => withRetry(fetch, o as RetryOptions)],
  ['kyRetry', (o) => kyRetry(o as RetryOptions)],
  ['attachRetry', (o) => attachRetry(api(), o as RetryOptions)],
];

const unknown = (name: string) => `jitterbug: unknown option "${name}"`;

/**
 * Other libraries' option names, each with its jitterbug equivalent: [library, name, a value as that
 * library takes it, what the fix says].
 */
export const PEER_NAMES: readonly (readonly [string, string, unknown, string])[] = [
  ['got', 'limit', 2, 'maxAttempts: 3'],
  ['got', 'calculateDelay', () => 100, 'backoff: { strategy, baseMs, capMs }'],
  ['got', 'noise', 100, "backoff's default strategy, 'full', is jittered"],
  ['got', 'backoffLimit', 5_000, 'backoff: { capMs }'],
  ['got', 'maxRetryAfter', 60_000, 'retryAfter: { maxMs }'],
  ['got', 'enforceRetryRules', true, 'methods, statusCodes and errorCodes always apply'],
  ['got', 'retry', { limit: 2, methods: ['GET'] }, "jitterbug's options are not nested in a retry object"],
  ['p-retry', 'retries', 5, 'maxAttempts: 6'],
  ['p-retry', 'factor', 2, "backoff: { strategy: 'exponential' }"],
  ['p-retry', 'minTimeout', 1_000, 'backoff: { baseMs }'],
  ['p-retry', 'maxTimeout', 30_000, 'backoff: { capMs }'],
  ['p-retry', 'randomize', true, 'jittered'],
  ['p-retry', 'onFailedAttempt', nothing, 'onRetry is called before each wait'],
  ['p-retry', 'shouldConsumeRetry', () => true, 'every retry counts in maxAttempts'],
  ['p-retry', 'maxRetryTime', 60_000, 'deadlineMs bounds the whole run'],
  ['p-retry', 'forever', true, 'maxAttempts (up to 1000) and deadlineMs'],
  ['p-retry', 'unref', true, "the caller's signal"],
  ['cockatiel', 'initialDelay', 128, 'backoff: { baseMs }'],
  ['cockatiel', 'maxDelay', 30_000, 'backoff: { capMs }'],
  ['cockatiel', 'exponent', 2, "backoff: { strategy: 'exponential' }"],
  ['cockatiel', 'circuitBreaker', {}, 'breaker: createCircuitBreaker({ failureRatio'],
  ['cockatiel', 'halfOpenAfter', 10_000, 'breaker: createCircuitBreaker({ failureRatio'],
  ['cockatiel', 'bulkhead', 10, 'jitterbug limits no concurrency'],
  ['Polly', 'maxRetryAttempts', 3, 'maxAttempts: 4'],
  ['Polly', 'MaxRetryAttempts', 3, 'maxAttempts: 4'],
  ['Polly', 'useJitter', true, 'jittered'],
  ['Polly', 'backoffType', 'Exponential', 'backoff: { strategy }'],
  ['Polly', 'delay', 2_000, 'backoff: { strategy, baseMs, capMs }'],
  ['Polly', 'delayGenerator', () => 100, 'backoff: { strategy, baseMs, capMs }'],
  ['Polly', 'shouldHandle', () => true, 'shouldRetry: (info) =>'],
  ['Polly', 'failureRatio', 0.5, 'breaker: createCircuitBreaker({ failureRatio'],
  ['Polly', 'breakDuration', 30_000, 'breaker: createCircuitBreaker({ failureRatio'],
  ['Polly', 'maxHedgedAttempts', 2, 'createHedging({ delayMs, maxCopies })'],
  ["undici's RetryHandler", 'maxRetries', 2, 'maxAttempts: 3'],
  ["undici's RetryHandler", 'minTimeout', 500, 'backoff: { baseMs }'],
  ["undici's RetryHandler", 'timeoutFactor', 2, "backoff: { strategy: 'exponential' }"],
  ["undici's RetryHandler", 'retry', () => undefined, "undici's retry callback decides and waits in one"],
  ["undici's RetryHandler", 'throwOnError', false, 'throwOnRetryableStatus'],
  ['axios-retry', 'retries', 3, 'maxAttempts: 4'],
  ['axios-retry', 'retryCondition', () => true, 'shouldRetry: (info) =>'],
  ['axios-retry', 'retryDelay', () => 100, 'backoff: { strategy, baseMs, capMs }'],
  ['axios-retry', 'shouldResetTimeout', true, 'attemptTimeoutMs gives each attempt a timer'],
  ['axios-retry', 'onMaxRetryTimesExceeded', nothing, 'onGiveUp'],
  ['axios-retry', 'validateResponse', () => true, 'isFailure: (info) => true'],
  ['ky', 'limit', 4, 'maxAttempts: 5'],
  ['ky', 'afterStatusCodes', [413, 429, 503], 'Retry-After'],
  ['ky', 'jitter', true, "backoff's default strategy, 'full', is jittered"],
  ['ky', 'retryOnTimeout', true, 'attemptTimeoutMs'],
  ['ky', 'retry', { limit: 3 }, 'maxAttempts: 4'],
  ['fetch-retry', 'retryOn', [503], 'statusCodes: [...]'],
  ['fetch-retry', 'retryDelay', 1_000, 'backoff: { strategy, baseMs, capMs }'],
  ['exponential-backoff', 'numOfAttempts', 5, 'maxAttempts: 5'],
  ['exponential-backoff', 'startingDelay', 100, 'backoff: { baseMs }'],
  ['exponential-backoff', 'timeMultiple', 2, "backoff: { strategy: 'exponential' }"],
  ['exponential-backoff', 'delayFirstAttempt', true, 'the first attempt is sent at once'],
];

/** A request's own fields (fetch's init, undici's) and a client's own options, given as retry options. */
export const REQUEST_FIELDS: readonly (readonly [string, unknown])[] = [
  ['method', 'POST'],
  ['headers', { authorization: 'Bearer x' }],
  ['body', '{}'],
  ['signal', new AbortController().signal],
  ['credentials', 'include'],
  ['mode', 'cors'],
  ['cache', 'no-store'],
  ['redirect', 'follow'],
  ['keepalive', true],
  ['priority', 'high'],
  ['duplex', 'half'],
  ['dispatcher', {}],
  ['json', { a: 1 }],
  ['searchParams', { q: 'x' }],
];
export const CLIENT_OPTIONS: readonly (readonly [string, unknown])[] = [
  ['prefix', '/api'],
  ['prefixUrl', '/api'],
  ['baseUrl', 'https://api.example.com/'],
  ['baseURL', 'https://api.example.com/'],
  ['hooks', {}],
  ['throwHttpErrors', false],
  ['validateStatus', () => true],
];

const peerRefusals: Refusal[] = PEER_NAMES.flatMap(([peer, name, value, fix]) =>
  ENTRY_POINTS.map(
    ([entry, make]): Refusal => ({
      kind: "another library's option",
      written: `${entry}({ ${name} }) (${peer})`,
      call: () => make({ [name]: value }),
      option: name,
      fix,
      short: unknown(name),
    }),
  ),
);

const fieldRefusals: Refusal[] = [
  ...REQUEST_FIELDS.flatMap(([name, value]): Refusal[] => [
    ...ENTRY_POINTS.map(
      ([entry, make]): Refusal => ({
        kind: 'a request field in the options',
        written: `${entry}({ ${name} })`,
        call: () => make({ [name]: value }),
        option: name,
        fix: `${name} is the request's, not a retry option`,
        short: unknown(name),
      }),
    ),
    {
      kind: 'a request field in the options',
      written: `a call's jitterbug: { ${name} }`,
      call: () =>
        policy({}).begin({ method: 'GET', url: 'https://api.example.com/a' }, { [name]: value } as never),
      option: `jitterbug.${name}`,
      fix: 'it goes beside jitterbug in the call',
      short: unknown(`jitterbug.${name}`),
    },
  ]),
  ...CLIENT_OPTIONS.flatMap(([name, value]) =>
    ENTRY_POINTS.map(
      ([entry, make]): Refusal => ({
        kind: "a client's own option in the options",
        written: `${entry}({ ${name} })`,
        call: () => make({ [name]: value }),
        option: name,
        fix: `${name} is the client's own option`,
        short: unknown(name),
      }),
    ),
  ),
  {
    kind: 'a request field in the options',
    written: "method: ['GET'] (a typo of methods)",
    call: () => policy({ method: ['GET'] }),
    option: 'method',
    fix: 'did you mean "methods"?',
    short: unknown('method'),
  },
];

const policyRefusals = (): Refusal[] => {
  const shared = createRetryPolicy();
  const notPolicy = (name: string) => `jitterbug: option "${name}" must be an object, not a retry policy`;
  return [
    {
      kind: 'a policy where options go',
      written: 'createRetryPolicy(policy)',
      call: () => createRetryPolicy(shared as never),
      option: 'options',
      fix: 'createRetryPolicy takes options and makes a policy; this one is made already',
      short: notPolicy('options'),
    },
    {
      kind: 'a policy where options go',
      written: 'attachRetry(api, policy, policy)',
      call: () => attachRetry(api(), shared, shared as never),
      option: 'adapterOptions',
      fix: "a policy goes in the options' place, attachRetry(instance, policy, adapterOptions)",
      short: notPolicy('adapterOptions'),
    },
    {
      kind: 'a policy where options go',
      written: 'kyRetry(policy, policy)',
      call: () => kyRetry(shared, shared as never),
      option: 'adapterOptions',
      fix: "a policy goes in the options' place, kyRetry(policy, adapterOptions)",
      short: notPolicy('adapterOptions'),
    },
    {
      kind: 'a policy where options go',
      written: 'routes: [policy]',
      call: () => createRetryPolicy({ routes: [shared as never] }),
      option: 'routes[0]',
      fix: 'a route rule is options with a match',
      short: notPolicy('routes[0]'),
    },
    {
      kind: 'a policy where options go',
      written: 'withRetry(fetch)(url, { jitterbug: policy })',
      call: (s) => withRetry(fetch)(`${s.url}/never`, { jitterbug: shared as never }),
      option: 'jitterbug',
      fix: "a call's jitterbug takes its own overrides ({ maxAttempts: 5 }) or false",
      short: notPolicy('jitterbug'),
      path: '/never',
    },
    {
      kind: 'a policy where options go',
      written: 'ky.create(kyRetry()).get(url, { jitterbug: policy })',
      call: (s) => ky.create(kyRetry()).get(`${s.url}/never`, { jitterbug: shared } as never),
      option: 'jitterbug',
      fix: "a call's jitterbug takes its own overrides",
      short: notPolicy('jitterbug'),
      path: '/never',
    },
    {
      kind: 'a policy where options go',
      written: 'axios api.get(url, { jitterbug: policy })',
      call: (s) => {
        const instance = api();
        attachRetry(instance);
        return instance.get(`${s.url}/never`, { jitterbug: shared as never });
      },
      option: 'jitterbug',
      fix: "a call's jitterbug takes its own overrides",
      short: notPolicy('jitterbug'),
      path: '/never',
    },
    ...['policy', 'retryPolicy'].map(
      (name): Refusal => ({
        kind: 'options where a policy goes',
        written: `withRetry(fetch, { ${name} })`,
        call: () => withRetry(fetch, { [name]: shared } as never),
        option: name,
        fix: 'give the policy itself where options go: withRetry(fetch, policy)',
        short: unknown(name),
      }),
    ),
    {
      kind: 'a policy where options go',
      written: 'createRetryPolicy({ ...policy })',
      call: () => createRetryPolicy({ ...shared, [Symbol.for('jitterbug.policy')]: undefined } as never),
      option: 'options',
      fix: 'this looks like a retry policy taken apart',
      short: unknown('options'),
    },
  ];
};

const clientRefusals: Refusal[] = [
  ['withRetry(ky)', ky, 'ky.create({ ...kyRetry(options) }) from @jitterbug/ky'],
  ['withRetry(ky.create())', ky.create(), 'ky.create({ ...kyRetry(options) }) from @jitterbug/ky'],
  ['withRetry(axios)', axios, 'attachRetry(axios.create(), options) from @jitterbug/axios'],
  ['withRetry(axios.create())', axios.create(), 'attachRetry(axios.create(), options) from @jitterbug/axios'],
  [
    'withRetry(got)',
    Object.assign(() => undefined, { extend: nothing, defaults: {}, paginate: nothing }),
    'jitterbug has no adapter for it',
  ],
  ['withRetry("https://…")', 'https://api.example.com/', 'withRetry takes the fetch to call first'],
  ['withRetry({ maxAttempts: 3 })', { maxAttempts: 3 }, 'withRetry takes the fetch to call first'],
].map(
  ([written, given, fix]): Refusal => ({
    kind: 'the wrong client',
    written: written as string,
    call: () => withRetry(given as never),
    option: 'fetch',
    fix: fix as string,
    short: 'jitterbug: option "fetch" must be a fetch function',
  }),
);

const answerRefusals: Refusal[] = [
  {
    kind: 'the wrong client',
    written: "withRetry(undici's request) (a function that answers { statusCode, body })",
    call: (s) =>
      (
        withRetry((async () => ({
          statusCode: 200,
          headers: {},
          body: {},
        })) as never) as unknown as typeof fetch
      )(`${s.url}/never`),
    option: 'fetch',
    fix: "undici's request() (its answer has statusCode): withRetry wraps a fetch",
    short: 'jitterbug: option "fetch" must be a fetch function',
  },
  {
    kind: 'the wrong client',
    written: 'withRetry(async () => undefined)',
    call: (s) => (withRetry((async () => undefined) as never) as unknown as typeof fetch)(`${s.url}/never`),
    option: 'fetch',
    fix: 'the function given as fetch answered this, not a Response',
    short: 'jitterbug: option "fetch" must be a fetch function',
  },
  {
    kind: 'the wrong client',
    written: 'withRetry(fetch, createRetryPolicy) (the factory not called)',
    call: () => withRetry(fetch, createRetryPolicy as never),
    option: 'options',
    fix: 'a function here is a factory not called',
    short: 'jitterbug: option "options" must be an object',
  },
];

const factoryRefusals: Refusal[] = (
  [
    [
      'createPacer',
      () => (createPacer as (o: unknown) => unknown)({ rate: 10 }),
      'the pacer has no settings',
    ],
    [
      'createResume',
      () => (createResume as (o: unknown) => unknown)({ maxResumes: 2 }),
      'createResume() has no settings',
    ],
    [
      'createForcedRetries',
      () => (createForcedRetries as (o: unknown) => unknown)({ limit: 2 }),
      'createForcedRetries() has no settings',
    ],
    [
      'createDiscardedBodyCap',
      () => (createDiscardedBodyCap as (o: unknown) => unknown)({ maxBytes: 1024 }),
      'createDiscardedBodyCap() has no settings',
    ],
    [
      'createRequestEdits',
      () => (createRequestEdits as (o: unknown) => unknown)({ headers: true }),
      'createRequestEdits() has no settings',
    ],
  ] as const
).map(
  ([factory, call, fix]): Refusal => ({
    kind: 'an opt-in factory given options it does not take',
    written: `${factory}({ … })`,
    call,
    option: `${factory}(options)`,
    fix,
    short: `jitterbug: option "${factory}(options)" must be absent: ${factory}() takes none`,
  }),
);

const route =
  (match: string, ...more: { match: string }[]) =>
  () =>
    policy({ routes: [{ match }, ...more] });

const routeRefusals: Refusal[] = [
  ...(
    [
      ["{ path: '/x' }", { path: '/x' }, 'routes[0].path'],
      ["{ match: '/x', method: 'POST' }", { match: '/x', method: 'POST' }, 'routes[0].method'],
      ["{ match: '/x', methods: undefined, url: '/y' }", { match: '/x', url: '/y' }, 'routes[0].url'],
    ] as const
  ).map(
    ([written, rule, option]): Refusal => ({
      kind: 'route rules',
      written: `a rule ${written}`,
      call: () => policy({ routes: [rule] }),
      option,
      fix: "a route rule says what it matches in its match: { match: 'POST /orders/*' }",
      short: unknown(option),
    }),
  ),
  {
    kind: 'route rules',
    written: "'GET,POST /x'",
    call: route('GET,POST /x'),
    option: 'routes[0].match',
    fix: 'methods are joined by "|": "GET|POST /x"',
    short: 'jitterbug: option "routes[0].match" must be a pattern whose methods are joined by "|"',
  },
  {
    kind: 'route rules',
    written: "'GET, PUT /items/:id'",
    call: route('GET, PUT /items/:id'),
    option: 'routes[0].match',
    fix: '"GET|PUT /items/:id"',
    short: 'jitterbug: option "routes[0].match" must be a pattern whose methods are joined by "|"',
  },
  {
    kind: 'route rules',
    written: "'/search?q=:term'",
    call: route('/search?q=:term'),
    option: 'routes[0].match',
    fix: "a rule matches the URL's path, never its query",
    short:
      'jitterbug: option "routes[0].match" must be a path pattern without a query (one is never matched)',
  },
  {
    kind: 'route rules',
    written: "'GET /reports?format=csv'",
    call: route('GET /reports?format=csv'),
    option: 'routes[0].match',
    fix: "match '/search', and test the query in a predicate",
    short:
      'jitterbug: option "routes[0].match" must be a path pattern without a query (one is never matched)',
  },
  {
    kind: 'route rules',
    written: "''",
    call: route(''),
    option: 'routes[0].match',
    fix: "an empty pattern matches nothing: '/*' matches every path",
    short: 'jitterbug: option "routes[0].match" must be a pattern, not empty',
  },
  {
    kind: 'route rules',
    written: "'   '",
    call: route('   '),
    option: 'routes[0].match',
    fix: 'an empty pattern matches nothing',
    short: 'jitterbug: option "routes[0].match" must be a pattern, not empty',
  },
  {
    kind: 'route rules',
    written: "'https://api.example.com/items'",
    call: route('https://api.example.com/items'),
    option: 'routes[0].match',
    fix: 'a pattern matches the path, not the whole URL',
    short: 'jitterbug: option "routes[0].match" must be a pattern whose methods are tokens',
  },
  ...(
    [
      ["'/*' before '/health'", '/*', '/health'],
      ["'/api/*' before 'GET /api/users'", '/api/*', 'GET /api/users'],
      ["'/users/:id' before '/users/me'", '/users/:id', '/users/me'],
      ["'/a' twice", '/a', '/a'],
      ["'GET|POST /pay' before 'POST /pay'", 'GET|POST /pay', 'POST /pay'],
    ] as const
  ).map(
    ([written, first, second]): Refusal => ({
      kind: 'route rules',
      written: `a shadowed rule: ${written}`,
      call: route(first, { match: second }),
      option: 'routes[1].match',
      fix: 'rules are tried in order and the first that matches wins, so this one is never used: put it before routes[0]',
      short:
        'jitterbug: option "routes[1].match" must be a pattern that no earlier rule matches first (routes[0] matches every request it would)',
    }),
  ),
];

/**
 * A request edit ported from a peer (axios-retry's `onRetry` changing the config, fetch-retry's
 * `input(attempt)`) as `beforeRetry`, without the factory that applies what it sets.
 */
const refreshHook = async (next: { headers: Headers }): Promise<void> => {
  next.headers.set('authorization', 'Bearer fresh');
};
const editRefusals: Refusal[] = (
  [
    ['withRetry', (o: unknown) => withRetry(fetch, o as RetryOptions)],
    ['kyRetry', (o: unknown) => kyRetry(o as RetryOptions)],
    ['attachRetry', (o: unknown) => attachRetry(api(), o as RetryOptions)],
    ['createRetryPolicy', policy],
  ] as const
).map(
  ([entry, make]): Refusal => ({
    kind: 'a request edit ported from a peer',
    written: `${entry}({ beforeRetry }) without requestEdits`,
    call: () => make({ ...quick, beforeRetry: refreshHook }),
    option: 'beforeRetry',
    fix: 'requestEdits: createRequestEdits()',
    short: 'jitterbug: option "beforeRetry" must be given with requestEdits: createRequestEdits()',
  }),
);

/** Every refusal of the table. */
export const refusals = (): Refusal[] => [
  ...editRefusals,
  ...clientRefusals,
  ...answerRefusals,
  ...policyRefusals(),
  ...peerRefusals,
  ...fieldRefusals,
  ...factoryRefusals,
  ...routeRefusals,
];

/** Mistakes that are not refused because they do what was meant: what reached the server. */
export const rights = (): Right[] => [
  {
    kind: 'attaching again',
    written: 'attachRetry(api, { maxAttempts: 2 }) then attachRetry(api, { maxAttempts: 4 })',
    path: '/attach',
    statuses: [503],
    send: (s) => {
      const instance = api();
      attachRetry(instance, { ...quick, maxAttempts: 2 });
      attachRetry(instance, { ...quick, maxAttempts: 4 });
      return instance.get(`${s.url}/attach`);
    },
    sent: 4,
  },
  {
    kind: 'attaching again',
    written: 'ky.create(kyRetry({ maxAttempts: 2 })).extend(kyRetry({ maxAttempts: 4 }))',
    path: '/ky-twice',
    statuses: [503],
    send: (s) =>
      ky
        .create(kyRetry({ ...quick, maxAttempts: 2 }))
        .extend(kyRetry({ ...quick, maxAttempts: 4 }))
        .get(`${s.url}/ky-twice`),
    sent: 4,
  },
  {
    kind: 'attaching again',
    written: 'withRetry(withRetry(fetch, { maxAttempts: 2 }), { maxAttempts: 4 })',
    path: '/nested',
    statuses: [503],
    send: (s) =>
      withRetry(withRetry(fetch, { ...quick, maxAttempts: 2 }), { ...quick, maxAttempts: 4 })(
        `${s.url}/nested`,
      ),
    sent: 4,
  },
  ...(
    [
      ['withRetry', (s: Server, p: string, o: RetryOptions) => withRetry(fetch, o)(`${s.url}${p}`)],
      ['kyRetry', (s: Server, p: string, o: RetryOptions) => ky.create(kyRetry(o)).get(`${s.url}${p}`)],
      [
        'attachRetry',
        (s: Server, p: string, o: RetryOptions) => {
          const instance = api();
          attachRetry(instance, o);
          return instance.get(`${s.url}${p}`);
        },
      ],
    ] as const
  ).flatMap(([client, send]): Right[] => [
    {
      kind: 'a request edit ported from a peer',
      written: `${client}: beforeRetry setting a token, with requestEdits: createRequestEdits(), a 401`,
      path: `/token-${client}`,
      statuses: [401, 200],
      send: (s) =>
        send(s, `/token-${client}`, {
          ...quick,
          shouldRetry: ({ status }) => (status === 401 ? true : undefined),
          requestEdits: createRequestEdits(),
          beforeRetry: refreshHook,
        }),
      sent: 2,
    },
    {
      kind: 'a hook ported from a peer',
      written: `${client}: shouldRetry: () => true, a 200`,
      path: `/ok-${client}`,
      statuses: [200],
      send: (s) => send(s, `/ok-${client}`, { ...quick, shouldRetry: () => true }),
      sent: 1,
    },
    {
      kind: 'a hook ported from a peer',
      written: `${client}: shouldRetry: () => true, a 404 (asked about failures)`,
      path: `/missing-${client}`,
      statuses: [404, 200],
      send: (s) => send(s, `/missing-${client}`, { ...quick, shouldRetry: () => true }),
      sent: 2,
    },
  ]),
  {
    kind: 'a hook ported from a peer',
    written: 'shouldRetry: () => true, a POST without a key answered 503',
    path: '/post',
    statuses: [503],
    send: (s) =>
      withRetry(fetch, { ...quick, shouldRetry: () => true })(`${s.url}/post`, { method: 'POST', body: 'x' }),
    sent: 1,
  },
  {
    kind: 'a hook ported from a peer',
    written: 'shouldRetry: () => true, a POST with an idempotency key answered 503',
    path: '/post-keyed',
    statuses: [503],
    send: (s) =>
      withRetry(fetch, { ...quick, shouldRetry: () => true })(`${s.url}/post-keyed`, {
        method: 'POST',
        body: 'x',
        headers: { 'idempotency-key': 'k-1' },
      }),
    sent: 3,
  },
  {
    kind: 'route rules',
    written: "'/search/*' meant to cover /search",
    path: '/search',
    statuses: [503],
    send: (s) =>
      withRetry(
        fetch,
        policy({ ...quick, routes: [{ match: '/search/*', maxAttempts: 4 }] }),
      )(`${s.url}/search`),
    sent: 4,
  },
  {
    kind: 'route rules',
    written: "ky prefix '/api/' and a rule '/health' for api.get('health')",
    path: '/api/health',
    statuses: [503],
    send: (s) =>
      ky
        .create({
          ...kyRetry(policy({ ...quick, routes: [{ match: '/health', maxAttempts: 4 }] })),
          prefix: `${s.url}/api/`,
        })
        .get('health'),
    sent: 4,
  },
  {
    kind: 'route rules',
    written: "ky baseUrl '…/api/' and a rule 'GET /health' for api.get('health')",
    path: '/api/health',
    statuses: [503],
    send: (s) =>
      ky
        .create({
          ...kyRetry(policy({ ...quick, routes: [{ match: 'GET /health', maxAttempts: 4 }] })),
          baseUrl: `${s.url}/api/`,
        })
        .get('health'),
    sent: 4,
  },
  {
    kind: 'route rules',
    written: "axios baseURL '…/api' and a rule '/health' for api.get('/health')",
    path: '/api/health',
    statuses: [503],
    send: (s) => {
      const instance = axios.create({ baseURL: `${s.url}/api` });
      attachRetry(instance, policy({ ...quick, routes: [{ match: '/health', maxAttempts: 4 }] }));
      return instance.get('/health');
    },
    sent: 4,
  },
  {
    kind: 'route rules',
    written: "axios baseURL and the rule written as the whole path, '/api/health'",
    path: '/api/health',
    statuses: [503],
    send: (s) => {
      const instance = axios.create({ baseURL: `${s.url}/api/` });
      attachRetry(instance, policy({ ...quick, routes: [{ match: '/api/health', maxAttempts: 4 }] }));
      return instance.get('health');
    },
    sent: 4,
  },
];

/**
 * Valid values that are almost surely a slip: warned of once per policy in development, not at all
 * in production. [what was written, the options, the option named, what the warning says].
 */
export const SLIPS: readonly (readonly [string, RetryPolicyOptions, string, string])[] = [
  ['deadlineMs: 30 (seconds meant)', { deadlineMs: 30 }, 'deadlineMs', 'deadlineMs: 30_000 for 30 seconds?'],
  ['deadlineMs: 0', { deadlineMs: 0 }, 'deadlineMs', 'leave deadlineMs out for no deadline'],
  [
    'attemptTimeoutMs: 5',
    { attemptTimeoutMs: 5 },
    'attemptTimeoutMs',
    'attemptTimeoutMs: 5_000 for 5 seconds?',
  ],
  [
    'retryAfter: { maxMs: 60 }',
    { retryAfter: { maxMs: 60 } },
    'retryAfter.maxMs',
    'maxMs: 60_000 for 60 seconds?',
  ],
  [
    'backoff: { baseMs: 0.5 }',
    { backoff: { baseMs: 0.5 } },
    'backoff.baseMs',
    'baseMs: 500 for 0.5 seconds?',
  ],
  [
    'a route rule: deadlineMs: 10',
    { routes: [{ match: '/slow/*', deadlineMs: 10 }] },
    'routes[0].deadlineMs',
    'deadlineMs: 10_000 for 10 seconds?',
  ],
  [
    "errorCodes: ['ECONNRESETT']",
    { errorCodes: ['ECONNRESETT'] },
    'errorCodes[0]',
    'did you mean "ECONNRESET"?',
  ],
  [
    "errorCodes: ['econnrefused']",
    { errorCodes: ['econnrefused'] },
    'errorCodes[0]',
    'did you mean "ECONNREFUSED"?',
  ],
  [
    "errorCodes: ['ETIMEDOUT', 'UND_ERR_SOCKETS']",
    { errorCodes: ['ETIMEDOUT', 'UND_ERR_SOCKETS'] },
    'errorCodes[1]',
    'did you mean "UND_ERR_SOCKET"?',
  ],
  [
    "errorCodes: ['ERR_NETWROK']",
    { errorCodes: ['ERR_NETWROK'] },
    'errorCodes[0]',
    'did you mean "ERR_NETWORK"?',
  ],
  [
    "errorCodes: ['Connection reset']",
    { errorCodes: ['Connection reset'] },
    'errorCodes[0]',
    'matches no failure',
  ],
];

/** Values a slip check must let be: real settings and real codes. */
export const NOT_SLIPS: readonly RetryPolicyOptions[] = [
  { deadlineMs: 100, attemptTimeoutMs: 100, retryAfter: { maxMs: 1_000 }, backoff: { baseMs: 0, capMs: 0 } },
  { deadlineMs: 30_000, attemptTimeoutMs: 5_000, backoff: { baseMs: 1, capMs: 1 } },
  {
    errorCodes: [
      'ECONNRESET',
      'ETIMEOUT',
      'UND_ERR_SOCKET',
      'ERR_HTTP2_STREAM_ERROR',
      'EAI_AGAIN',
      'ERR_SOME_NODE_CODE',
    ],
  },
  { retryAfter: false, hedge: createHedging({ delayMs: 5 }) },
];
