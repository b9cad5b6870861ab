/**
 * What an option error adds to say the fix, in development builds only: for a name jitterbug does
 * not take, its jitterbug equivalent (the peer libraries' names: axios-retry, ky, fetch-retry,
 * p-retry, undici's RetryHandler, exponential-backoff) or where it goes (an adapter's own setting
 * given with the policy's options); for a value that shows what was meant, how to write it.
 */

/** A hint, or a function of the value given (and of the name it was given as) that writes one. */
type Hint = string | ((value: unknown, name: string) => string);

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

/** Names jitterbug does not take, by what they mean elsewhere. Looked up case-insensitively. */
export const UNKNOWN_HINTS: Readonly<Record<string, Hint>> = {
  retries,
  maxRetries: retries,
  limit: retries,
  retry: (value, name) =>
    typeof value === 'number'
      ? retries(value, name)
      : "retries are on by default; for none, maxAttempts: 1 in a policy's options, retry: false in a route rule, or false as a call's own settings (jitterbug: false)",
  attempts,
  numOfAttempts: attempts,
  retryDelay: delays,
  delay: delays,
  minTimeout: 'backoff: { baseMs } sets the first wait',
  maxTimeout: cap,
  maxDelay: cap,
  backoffLimit: cap,
  factor: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  timeoutFactor: `backoff: { strategy: 'exponential' } doubles each wait; ${jitter}`,
  jitter,
  randomize: jitter,
  retryCondition: decide,
  validateResponse: decide,
  retryOn: `statusCodes: [...] lists the statuses retried; for a function, ${decide}`,
  afterStatusCodes: serverDelay,
  maxRetryAfter: serverDelay,
  respectRetryAfter: serverDelay,
  timeout:
    "a client's own timeout (ky's, axios') bounds the whole call and stays in the client's options; attemptTimeoutMs bounds each attempt, deadlineMs the whole run",
  totalTimeout: runTime,
  maxRetryTime: runTime,
  shouldResetTimeout: 'attemptTimeoutMs gives each attempt a timer of its own',
  retryOnTimeout: 'an attempt that times out (attemptTimeoutMs) is retried like a network error',
  onFailedAttempt: beforeWait,
  onMaxRetryTimesExceeded: 'onGiveUp is called when a failure is not retried',
  throwOnError: undiciSetting(undefined, 'throwOnRetryableStatus: true'),
  routes: 'route rules are given to createRetryPolicy({ routes }), whose policy you then pass',
  cooldown: 'the origin-wide cooldown is now the pacer: pacer: createPacer(), set in a policy’s options',
  hedge:
    'hedging is set in the options of a policy or of a route rule, not of one call: a percentile delay needs the latencies their requests share',
  // Names of earlier versions: every byte limit ends in MaxBytes, a hedge counts copies.
  bufferStreamBytes: 'renamed bufferStreamMaxBytes (every byte limit ends in MaxBytes)',
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
};

/** How an entry point is called, for a policy option given among its own settings (`$`: the option). */
export const SIGNATURES: Readonly<Record<string, string>> = {
  kyRetry: 'kyRetry({ $ }, adapterOptions)',
  retryInterceptor: 'retryInterceptor({ $ }, adapterOptions)',
  attachRetry: 'attachRetry(instance, { $ }, adapterOptions)',
  withRetry: 'withRetry(fetch, { $ })',
  instrumentRetries: 'createRetryPolicy({ $ }), or an adapter given the options',
};

/** What was meant, for a value that shows it (keyed by the situation the caller names). */
export const VALUE_HINTS: Readonly<Record<string, Hint>> = {
  kyRetry:
    'kyRetry(options) makes ky options: spread them into ky.create({ ...kyRetry(options) }) or give them to api.extend(kyRetry(options)); it does not take ky',
  retryInterceptor:
    'retryInterceptor is a factory: compose what it returns, dispatcher.compose(retryInterceptor(options))',
  attachRetry:
    'attachRetry takes the axios instance first: attachRetry(axios.create(), options), or attachRetry(axios, options)',
  withRetry:
    'withRetry(fetch, options) takes two arguments: policy options go in the second, and getRetryInfo(response) tells what a request cost',
  withRetryFetch: 'withRetry takes the fetch to call first: withRetry(fetch, options)',
  backoff: (value, name) =>
    typeof value === 'string'
      ? `a strategy's name goes in the object: ${name}: { strategy: ${JSON.stringify(value)} }`
      : '',
  routeMethod:
    "a typo? HTTP's methods are GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, TRACE, PATCH and QUERY; one of your own (PURGE) is matched once methods lists it, on the policy or the rule (which also makes it retried)",
  axiosResume:
    'axios reads each body whole before jitterbug hands it over, so there is nothing to resume; resume works with fetch, ky and undici (a policy shared with them may keep it: attachRetry ignores it there)',
  axiosDiscard:
    "axios reads a retried response's body itself (your maxContentLength bounds it); discardBodyMaxBytes applies in stream mode only: attachRetry(instance, options, { discardedBodyCap: createDiscardedBodyCap() })",
};
