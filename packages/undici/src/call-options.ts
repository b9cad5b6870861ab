/**
 * One request's own retry settings, for undici's `request()` and `dispatch()`: the dispatch options
 * carry them to the interceptor as `jitterbug`. undici's option types cannot be extended from
 * outside (its `Dispatcher` namespace is a default export), so this typed helper is spread into them.
 */
import type { CallOverrides } from '@jitterbug/core';

/**
 * The option that gives one request its own overrides of the policy, or `false` to send it once:
 *
 * ```ts
 * await request(url, { dispatcher, ...jitterbugOptions({ maxAttempts: 5 }) });
 * ```
 */
export const jitterbugOptions = (overrides: CallOverrides | false): Record<never, never> =>
  // Typed as no field at all: undici's option types refuse any they do not know.
  ({ jitterbug: overrides }) as Record<never, never>;
