/**
 * kyRetry's refusals as production and browser builds word them: the ky option set again after
 * `kyRetry()`, without the fix (`full.ts` tells it), so that a shipped bundle does not carry the
 * fixes' text.
 */
import type * as Full from './full.ts';

export const retrySetText: typeof Full.retrySetText =
  'jitterbug: ky\'s "retry" option was set after kyRetry()';

export const limitSetText: typeof Full.limitSetText =
  'jitterbug: ky\'s "retry" limit was set after kyRetry()';

export const fetchSetText: typeof Full.fetchSetText =
  'jitterbug: ky\'s "fetch" option was set after kyRetry()';
