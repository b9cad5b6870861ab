/**
 * A user's program, typechecked against the packages' built `.d.ts` files (not their sources) by the
 * oldest TypeScript the READMEs promise (`scripts/check-packages.sh` runs it after the build).
 */
import { attachRetry } from '@jitterbug/axios';
import { createRetryPolicy, getRetryInfo, type RetryInfo, type RetryOptions } from '@jitterbug/core';
import { createHedging, createPacer, withRetry } from '@jitterbug/fetch';
import { createAdaptiveThrottle, kyRetry } from '@jitterbug/ky';
import { jitterbugOptions, retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import ky from 'ky';
import { Agent, request } from 'undici';

const options: RetryOptions = { maxAttempts: 4, onRetry: (event) => console.log(event.delayMs) };
const policy = createRetryPolicy({ ...options, routes: [{ match: 'GET /reports/*', maxAttempts: 6 }] });

export const fetchWithRetry = withRetry(fetch, policy);
export const response = await fetchWithRetry('https://example.com/', { jitterbug: { maxAttempts: 2 } });
export const info: RetryInfo | undefined = getRetryInfo(response);
export const api = ky.create(kyRetry(policy));
export const text = await api.get('https://example.com/', { jitterbug: false }).text();
attachRetry(axios.create(), policy);
// The opt-in features' factories, from whichever adapter is at hand.
export const featured = withRetry(fetch, {
  hedge: createHedging({ delayMs: 'p95' }),
  pacer: createPacer(),
  throttle: createAdaptiveThrottle({ k: 2 }),
});
// A call cannot hedge (a percentile needs the latencies a policy's requests share).
export const unhedged = featured('https://example.com/', {
  // @ts-expect-error: `hedge` is not a call's override
  jitterbug: { hedge: createHedging({ delayMs: 5 }) },
});
const dispatcher = new Agent().compose(retryInterceptor(policy));
export const res = await request('https://example.com/', {
  dispatcher,
  ...jitterbugOptions({ maxAttempts: 2 }),
});
