/**
 * What an option error adds to say the fix, in development builds only: for a name jitterbug does
 * not take, its jitterbug equivalent (the peer libraries' names: axios-retry, ky, fetch-retry,
 * p-retry, undici's RetryHandler, exponential-backoff) or where it goes (an adapter's own setting
 * given with the policy's options); for a value that shows what was meant, how to write it.
 */

/**
 * A hint, or a function that writes one from the value given, the name it was given as and its
 * whole path (`jitterbug.method`, `routes[0].backoff.options`).
 */
type Hint = string | ((value: unknown, name: string, path: string) => string);

const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 1000;

/** A peer's count of retries, which does not count the first attempt. */
const retries: Hint = (value, name) =>
  `jitterbug counts attempts, the first included: ${
    isCount(value) ? `maxAttempts: ${value + 1} for ${name}: ${value}` : `maxAttempts is ${name} + 1`
  }`;

/** A peer's count of attempts, which counts the first as jitterbug does. */
const attempts: Hint = (value) =>
  `maxAttempts${isCount(value) ? `: ${value}` : ''} (attempts in all, the first included)`;

const delays = 'waits come from backoff: { strategy, baseMs, capMs }, or a backoff function of your own';
const cap = 'backoff: { capMs } caps each wait';
const jitter = "backoff's default strategy, 'full', is jittered; 'exponential' is the same without jitter";
const decide = "shouldRetry: (info) => true, false or undefined (undefined keeps jitterbug's decision)";
const serverDelay =
  'a server delay (Retry-After, RateLimit-Reset) is honoured on every retried status: retryAfter: { maxMs } bounds it, retryAfter: false ignores it';
const runTime = 'deadlineMs bounds the whole run, waits included';
const beforeWait = 'onRetry is called before each wait (onGiveUp when a failure is not retried)';
const undiciSetting = (_value: unknown, name: string): string =>
  `a setting of retryInterceptor (@jitterbug/undici), its second argument: retryInterceptor(options, { ${name} })`;

/** Polly's, cockatiel's and opossum's circuit breakers' settings: where jitterbug's go. */
const breaker =
  "a circuit breaker is a policy's option: breaker: createCircuitBreaker({ failureRatio, minimumThroughput, samplingMs, breakMs })";

/** A request's own field, given with the retry options: where it goes. */
const requestField = (_value: unknown, name: string, path: string): string =>
  path.startsWith('routes[')
    ? `a route rule says what it matches in its match: { match: 'POST /orders/*' } (methods, then a path), or a predicate, ({ method, url }) => …`
    : `${name} is the request's, not a retry option: ${
        path.startsWith('jitterbug.')
          ? `it goes beside jitterbug in the call's options, fetchWithRetry(url, { ${name}, jitterbug: { … } })`
          : `it goes in the call (fetchWithRetry(url, { ${name} }), api.get(url, { ${name} })) or the client's own options (ky.create(), axios.create())`
      }`;

/** A client's own option (ky's, axios'), given with the retry options. */
const clientOption = (_value: unknown, name: string): string =>
  `${name} is the client's own option: it stays in ky.create({ ${name}, ...kyRetry(options) }) or axios.create({ ${name} }) (or the call's), beside jitterbug, not in its options`;

/** A policy's own fields, found where options go (a policy spread into them, a cockatiel backoff). */
const policyFields = (_value: unknown, _name: string, path: string): string =>
  path.startsWith('backoff.')
    ? "cockatiel's and other libraries' backoff objects are not taken: backoff: { strategy: 'full', baseMs, capMs }, or a function (state, params, random) => ms"
    : 'this looks like a retry policy taken apart: give the policy itself where options go (withRetry(fetch, policy), kyRetry(policy), attachRetry(instance, policy)); a call takes only its own overrides';

/** Stream-body buffering, as its factory writes it (with the limit given, when it is a number). */
const bodyBuffering = (value: unknown): string =>
  `bodyBuffering: createBodyBuffering(${typeof value === 'number' ? `{ maxBytes: ${value} }` : ''}) (import it from your jitterbug adapter or @jitterbug/core)`;

/** A policy wrapped in options: it is given as it is. */
const wrappedPolicy =
  'give the policy itself where options go: withRetry(fetch, policy), kyRetry(policy), attachRetry(instance, policy), retryInterceptor(policy)';

/** got's and ky's `retry: { … }` object: its fields are jitterbug's options, at the top. */
const retryObject = (value: Record<string, unknown>): string => {
  const fields = Object.keys(value)
    .map((key) => {
      const hint = UNKNOWN_HINTS[key];
      const shown = typeof hint === 'function' ? hint(value[key], key, key) : hint;
      return shown === undefined ? `${key} stays ${key}` : `${key}: ${shown}`;
    })
    .join('; ');
  return `jitterbug's options are not nested in a retry object: give them at the top${fields && ` (${fields})`}`;
};

/** Names jitterbug does not take, by what they mean elsewhere. Looked up case-insensitively. */
export const UNKNOWN_HINTS: Readonly<Record<string, Hint>> = {
  // Counts of retries (axios-retry, fetch-retry, p-retry, undici, got, ky, Polly), of attempts.
  retries,
  maxRetries: retries,
  limit: retries,
  maxRetryAttempts: retries,
  retry: (value, name) =>
    typeof value === 'number'
      ? retries(value, name, name)
      : typeof value === 'function'
        ? `undici's retry callback decides and waits in one; jitterbug splits them: ${decide}, and the waits are backoff's`
        : typeof value === 'object' && value !== null
          ? retryObject(value as Record<string, unknown>)
          : "retries are on by default; for none, maxAttempts: 1 in a policy's options, retry: false in a route rule, or false as a call's own settings (jitterbug: false)",
  attempts,
  numOfAttempts: attempts,
  forever:
    'no retry goes on for ever: maxAttempts (up to 1000) and deadlineMs, the time the whole run may take, bound it',
  // Waits.
  retryDelay: delays,
  delay: delays,
  delayGenerator: delays,
  calculateDelay: `${delays}; a server's Retry-After is honoured before it (retryAfter)`,
  minTimeout: 'backoff: { baseMs } sets the first wait',
  initialDelay: 'backoff: { baseMs } sets the first wait',
  startingDelay: 'backoff: { baseMs } sets the first wait',
  maxTimeout: cap,
  maxDelay: cap,
  backoffLimit: cap,
  factor: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  timeoutFactor: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  timeMultiple: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  exponent: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  backoffType:
    "backoff: { strategy } names the curve: 'constant', 'exponential' (doubling, no jitter), or the jittered 'full' (the default), 'equal' and 'decorrelated'",
  jitter,
  randomize: jitter,
  useJitter: jitter,
  noise: jitter,
  generator: jitter,
  delayFirstAttempt: 'the first attempt is sent at once; only retries wait',
  // Deciding.
  retryCondition: decide,
  shouldHandle: decide,
  handleWhen: decide,
  enforceRetryRules: `methods, statusCodes and errorCodes always apply; ${decide}`,
  shouldConsumeRetry:
    'every retry counts in maxAttempts, but for a failure that proves the request never reached the server (transparentRetries); the budget (budget) bounds retries across requests',
  validateResponse:
    'isFailure: (info) => true for a response below 400 that is a failure all the same (validateResponse returning false); it is then retried as a status in statusCodes is',
  retryOn: `statusCodes: [...] lists the statuses retried; for a function, ${decide}`,
  afterStatusCodes: serverDelay,
  maxRetryAfter: serverDelay,
  respectRetryAfter: serverDelay,
  // Time.
  timeout:
    "a client's own timeout (ky's, axios') bounds the whole call and stays in the client's options; attemptTimeoutMs bounds each attempt, deadlineMs the whole run",
  totalTimeout: runTime,
  maxRetryTime: runTime,
  shouldResetTimeout: 'attemptTimeoutMs gives each attempt a timer of its own',
  retryOnTimeout: 'an attempt that times out (attemptTimeoutMs) is retried like a network error',
  unref: "jitterbug's waits end with the caller's signal (the call's signal ends a wait at once)",
  // Events.
  onFailedAttempt: beforeWait,
  onMaxRetryTimesExceeded: 'onGiveUp is called when a failure is not retried',
  throwOnError: undiciSetting(undefined, 'throwOnRetryableStatus: true'),
  // What jitterbug has in place of a circuit breaker (cockatiel, Polly, opossum).
  circuitBreaker: breaker,
  // A store given where the fleet's factories are not.
  store: (_value: unknown, _key: string, path: string) =>
    path.endsWith('budget.store')
      ? "a budget the fleet shares is made by createRetryBudget({ store }) from '@jitterbug/core/store', given as budget"
      : "a store goes to the fleet's factories: createRetryBudget({ store }), createPacer({ store }) and createCircuitBreaker({ store }) from '@jitterbug/core/store'",
  halfOpenAfter: breaker,
  failureRatio: breaker,
  failureThreshold: breaker,
  samplingDuration: breaker,
  minimumThroughput: breaker,
  breakDuration: breaker,
  bulkhead: "jitterbug limits no concurrency: a pool of your own (p-limit, undici's connections) does",
  maxHedgedAttempts:
    'hedge: createHedging({ delayMs, maxCopies }) sends copies of a slow attempt (maxCopies: the copies in flight at once)',
  routes: 'route rules are given to createRetryPolicy({ routes }), whose policy you then pass',
  cooldown: 'the origin-wide cooldown is now the pacer: pacer: createPacer(), set in a policy’s options',
  hedge:
    'hedging is set in the options of a policy or of a route rule, not of one call: a percentile delay needs the latencies their requests share',
  // A policy where options go, and options where a policy goes.
  options: policyFields,
  begin: policyFields,
  resolve: policyFields,
  routeOptions: policyFields,
  buffersStreams: policyFields,
  policy: wrappedPolicy,
  retryPolicy: wrappedPolicy,
  // Names of earlier versions: every byte limit ends in MaxBytes, a hedge counts copies.
  bufferStreamBytes: (value) =>
    `renamed bufferStreamMaxBytes, and that is now a factory's: ${bodyBuffering(value)}`,
  bufferStreamMaxBytes: (value) => `stream-body buffering comes from a factory: ${bodyBuffering(value)}`,
  knownLengthBodyBytes: (value) =>
    `renamed knownLengthBodyMaxBytes, ${undiciSetting(value, 'knownLengthBodyMaxBytes')}`,
  maxAttempts:
    "maxAttempts is a policy's option; a hedge's copies of an attempt are createHedging({ delayMs, maxCopies })",
  // An adapter's own settings, given with the policy's options.
  forcedRetries:
    'a setting of kyRetry, its second argument: kyRetry(options, { forcedRetries: createForcedRetries() })',
  fetch:
    'a setting of kyRetry, its second argument: kyRetry(options, { fetch }); withRetry takes its fetch first, withRetry(fetch, options)',
  discardedBodyCap:
    'a setting of attachRetry, its third argument: attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })',
  capDiscardedBodies:
    'renamed: attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() }), the third argument of attachRetry',
  infoHeaders: undiciSetting,
  knownLengthBodyMaxBytes: undiciSetting,
  throwOnRetryableStatus: undiciSetting,
  // A request's own fields (fetch's init, undici's), and the clients' own options (ky's, axios').
  path: requestField,
  pattern: requestField,
  method: (value, name, path) =>
    Array.isArray(value) && !path.startsWith('routes[')
      ? 'did you mean "methods"? (the methods retried)'
      : `${requestField(value, name, path)}; the methods that are retried are methods: [...]`,
  ...Object.fromEntries(
    [
      'headers',
      'body',
      'signal',
      'credentials',
      'mode',
      'cache',
      'redirect',
      'referrer',
      'referrerPolicy',
      'integrity',
      'keepalive',
      'window',
      'duplex',
      'priority',
      'dispatcher',
      'url',
      'data',
      'params',
      'json',
      'searchParams',
    ].map((key) => [key, requestField]),
  ),
  ...Object.fromEntries(
    [
      'prefix',
      'prefixUrl',
      'baseUrl',
      'baseURL',
      'hooks',
      'throwHttpErrors',
      'parseJson',
      'stringifyJson',
      'onDownloadProgress',
      'onUploadProgress',
      'context',
      'validateStatus',
      'adapter',
      'auth',
      'responseType',
      'maxRedirects',
      'maxContentLength',
      'httpAgent',
      'httpsAgent',
      'proxy',
      'transformRequest',
      'transformResponse',
      'withCredentials',
    ].map((key) => [key, clientOption]),
  ),
};

/** How an entry point is called, for a policy option given among its own settings (`$`: the option). */
export const SIGNATURES: Readonly<Record<string, string>> = {
  kyRetry: 'kyRetry({ $ }, adapterOptions)',
  retryInterceptor: 'retryInterceptor({ $ }, adapterOptions)',
  attachRetry: 'attachRetry(instance, { $ }, adapterOptions)',
  withRetry: 'withRetry(fetch, { $ })',
  instrumentRetries: 'createRetryPolicy({ $ }), or an adapter given the options',
};

/**
 * What was meant, for a value that shows it (keyed by the situation the caller names; a function
 * gets what follows a `:` in the situation as its third argument: `policy:attachRetry`).
 */
export const VALUE_HINTS: Readonly<Record<string, Hint>> = {
  kyRetry:
    'kyRetry(options) makes ky options: spread them into ky.create({ ...kyRetry(options) }) or give them to api.extend(kyRetry(options)); it does not take ky',
  retryInterceptor:
    'retryInterceptor is a factory: compose what it returns, dispatcher.compose(retryInterceptor(options))',
  attachRetry:
    'attachRetry takes the axios instance first: attachRetry(axios.create(), options), or attachRetry(axios, options)',
  withRetry:
    'withRetry(fetch, options) takes two arguments: policy options go in the second, and getRetryInfo(response) tells what a request cost',
  fetchAnswer: (value) =>
    `the function given as fetch answered this, not a Response: ${
      typeof value === 'object' && value !== null && 'statusCode' in value
        ? "undici's request() (its answer has statusCode): withRetry wraps a fetch (undici's fetch, Node's global one), and undici's request() retries with dispatcher.compose(retryInterceptor(options)) from @jitterbug/undici"
        : "withRetry wraps a fetch, which resolves with a Response (the global fetch, undici's fetch); another client has an adapter of its own (@jitterbug/ky, @jitterbug/axios, @jitterbug/undici)"
    }`,
  withRetryFetch: (value) =>
    typeof value === 'function'
      ? clientHint(value)
      : 'withRetry takes the fetch to call first: withRetry(fetch, options)',
  instrumentRetriesTwice:
    'instrumentRetries is already running (called twice: by a library and by the program, in two modules?), and a second instrumentation would count each retry twice: call it once, at start-up; a second call with the same meterProvider and activeSpan shares the first (its budgets added)',
  // Factories that take no options, given some.
  createPacer:
    "the pacer has no settings: it learns each origin's rate from the server (RateLimit and X-RateLimit headers, its 429s and their Retry-After) and sends no faster; jitterbug has no fixed-rate limiter of its own; a pace the fleet shares is createPacer({ store }) from '@jitterbug/core/store'",
  createResume:
    'createResume() has no settings: a download resumes from the byte it broke at, each resume an attempt within maxAttempts, the deadline and the budget; resume: false turns it off',
  createForcedRetries:
    "createForcedRetries() has no settings: ky.retry() from an afterResponse hook is a forced retry, within the policy's maxAttempts, deadline and budget",
  createDiscardedBodyCap:
    "createDiscardedBodyCap() has no settings: the bytes read of a response that is retried are the policy's discardBodyMaxBytes",
  createRequestEdits:
    'createRequestEdits() has no settings: what beforeRetry sets on next.headers and next.url is what the next attempts send',
  // beforeRetry without the factory that applies what it sets.
  beforeRetry:
    'what beforeRetry sets on a retry is applied by requestEdits: createRequestEdits() (import it from your jitterbug adapter or @jitterbug/core), a factory so that a program that never changes a request does not carry it',
  // An opt-in feature's option given a plain value where its factory's object goes.
  idempotencyKey: (value) =>
    typeof value === 'object' && value !== null
      ? `generated keys come from a factory: idempotencyKey: createIdempotencyKeys(${
          Object.keys(value).length > 0 ? '{ header?, generate? }' : ''
        }) (import it from your jitterbug adapter or @jitterbug/core)`
      : '',
  attemptHeaders: (value) =>
    value === true || (typeof value === 'object' && value !== null)
      ? `the attempt headers come from a factory: attemptHeaders: createAttemptHeaders(${
          value === true ? '' : '{ attempt?, deadline? }'
        }) (import it from your jitterbug adapter or @jitterbug/core)`
      : '',
  // A limit (`1024`, `{ maxBytes: 1024 }`) or `true` where the factory's object goes.
  bodyBuffering: (value) =>
    value === true || typeof value === 'number' || (typeof value === 'object' && value !== null)
      ? `stream-body buffering comes from a factory: ${bodyBuffering((value as { maxBytes?: unknown }).maxBytes ?? value)}`
      : '',
  policy: (_value, name, owner) => policyHint(name, owner),
  backoff: (value, name) =>
    typeof value === 'string'
      ? `a strategy's name goes in the object: ${name}: { strategy: ${JSON.stringify(value)} }`
      : '',
  routePath: (value) =>
    typeof value === 'string' && value.trim() === ''
      ? "an empty pattern matches nothing: '/*' matches every path, '/reports/*' one part of them"
      : `a pattern is a path, with methods before it if any: "GET /reports/*" or "/reports/*" ('/*' for every path)`,
  routeMethods: (value) =>
    `methods are joined by "|": ${JSON.stringify(
      typeof value === 'string'
        ? value.trim().replace(
            /^([^/]*?)\s*(\/.*)$/,
            (_all, methods: string, rest: string) =>
              `${methods
                .split(/[\s,;|]+/)
                .filter(Boolean)
                .join('|')} ${rest}`,
          )
        : 'GET|POST /path',
    )}`,
  routeMethodToken: (value) =>
    typeof value === 'string' && /^[a-z][a-z\d+.-]*:/i.test(value.trim())
      ? "a pattern matches the path, not the whole URL: '/reports/*'; for the host too, give a URLPattern ({ hostname, pathname }) or a predicate (({ url }) => url.hostname === …)"
      : 'methods are names of letters joined by "|": "GET|POST /path"',
  routeQuery:
    "a rule matches the URL's path, never its query or fragment: match '/search', and test the query in a predicate if it matters (({ url }) => url.pathname === '/search' && url.searchParams.has('q'))",
  routeShadowed: (_value, _name, earlier) =>
    `rules are tried in order and the first that matches wins, so this one is never used: put it before routes[${earlier}] (the specific before the general), or remove it`,
  routeMethod:
    "a typo? HTTP's methods are GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH and QUERY; one of your own (PURGE) is matched once methods lists it, on the policy or the rule (which also makes it retried)",
  axiosResume:
    'axios reads each body whole before jitterbug hands it over, so there is nothing to resume; resume works with fetch, ky and undici (a policy shared with them may keep it: attachRetry ignores it there)',
  axiosDiscard:
    "axios reads a retried response's body itself (your maxContentLength bounds it); discardBodyMaxBytes applies in stream mode only: attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })",
};

/** What to use for a client given to `withRetry` in place of a fetch function. */
const clientHint = (value: unknown): string => {
  const client = value as Record<string, unknown>;
  if ('interceptors' in client) {
    return 'this is axios, which jitterbug plugs into itself: attachRetry(axios.create(), options) from @jitterbug/axios (or attachRetry(axios, options))';
  }
  if ('stop' in client || 'retry' in client) {
    return 'this is ky, which jitterbug plugs into itself: ky.create({ ...kyRetry(options) }) from @jitterbug/ky';
  }
  return 'this is a client with its own retries (got?), not a fetch: jitterbug has no adapter for it; withRetry(fetch, options) wraps the global fetch, @jitterbug/ky and @jitterbug/axios their clients';
};

/** Where a policy goes, for one given where options (or settings) were expected. */
const policyHint = (where: string, owner: string): string => {
  if (owner !== '') {
    return `a policy goes in the options' place, ${(SIGNATURES[owner] ?? '$').replace('{ $ }', 'policy')}; this argument is ${owner}'s own settings`;
  }
  if (where === 'jitterbug') {
    return "a call's jitterbug takes its own overrides ({ maxAttempts: 5 }) or false; the policy is the client's: withRetry(fetch, policy), kyRetry(policy), attachRetry(instance, policy)";
  }
  if (where.startsWith('routes['))
    return "a route rule is options with a match ({ match: '/path', maxAttempts: 5 }), not a policy";
  return 'createRetryPolicy takes options and makes a policy; this one is made already: give it to the clients as it is (withRetry(fetch, policy), kyRetry(policy), attachRetry(instance, policy), retryInterceptor(policy))';
};
