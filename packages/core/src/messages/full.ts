/**
 * Option errors as development builds word them (Node, and bundlers resolving `development` or no
 * build condition): the option, what it must be, the value given, and the fix when it can be told:
 * the closest real option for a typo, the jitterbug equivalent of a peer library's option, where a
 * real option given in the wrong place goes. And the warnings of values that are valid but almost
 * surely a slip (`slips.ts`), and of route rules that matched nothing (`unmatched-routes.ts`).
 * `short.ts` is the same without the fixes, and warns of nothing.
 */

import { isPolicyMarked } from '../policy-brand.ts';
import { closestOption } from './closest.ts';
import { describeValue } from './describe-value.ts';
import { SIGNATURES, UNKNOWN_HINTS, VALUE_HINTS } from './hints.ts';

export { warnSlips } from './slips.ts';
export { watchRoutes } from './unmatched-routes.ts';

const hintFor = (
  table: typeof UNKNOWN_HINTS,
  key: string,
  value: unknown,
  name: string,
  detail = name,
): string => {
  const lower = key.toLowerCase();
  const found = Object.keys(table).find((k) => k.toLowerCase() === lower);
  const hint = found === undefined ? '' : table[found]!;
  return typeof hint === 'function' ? hint(value, name, detail) : hint;
};

/**
 * The message for option `name`, which must be `expected` and is `value`; `situation` names a
 * mistake whose fix can be told from the value (`'kyRetry'`: ky itself given as options).
 */
export const mustBe = (name: string, expected: string, value: unknown, situation?: string): string => {
  // A policy where options go: where it goes instead (`situation`: the entry point, if any).
  const [key, detail = ''] = isPolicyMarked(value) ? ['policy', situation] : (situation?.split(':') ?? []);
  const hint =
    key === undefined
      ? typeof value === 'function' && expected === 'an object'
        ? 'options are an object ({ maxAttempts: 4 }), or a policy from createRetryPolicy(options): a function here is a factory not called, or an argument in the wrong place'
        : ''
      : hintFor(VALUE_HINTS, key, value, name, detail);
  return `jitterbug: option "${name}" must be ${expected}, got ${describeValue(value)}${hint && `: ${hint}`}`;
};

/** Where the options holding `name` are, for the message: a call's, a route rule's, an entry point's own. */
const placeOf = (name: string, owner: string | undefined): string =>
  owner !== undefined
    ? ` among the settings of ${owner}`
    : name.startsWith('jitterbug.')
      ? ' for a single call'
      : name.startsWith('routes[')
        ? ' in a route rule'
        : '';

/**
 * The message for option `name` (a path: `routes[0].maxAttempt`), which is not one of `known`, its
 * siblings. `policyKey`: the name is a policy's option, refused here (a call's, a route's, an
 * entry point's own settings). `owner`: the entry point whose own settings these are (`'kyRetry'`).
 */
export const unknownText = (
  name: string,
  known: Iterable<string>,
  value: unknown,
  policyKey = false,
  owner?: string,
): string => {
  const key = name.slice(name.lastIndexOf('.') + 1);
  const closest = closestOption(key, known);
  const hint =
    policyKey && owner !== undefined
      ? `it goes with the retry policy's options: ${(SIGNATURES[owner] ?? '$').replace('$', key)}`
      : closest?.toLowerCase() === key.toLowerCase()
        ? `did you mean "${closest}"?`
        : hintFor(UNKNOWN_HINTS, key, value, key, name) ||
          (policyKey
            ? `it is set in a policy's options (createRetryPolicy({ ${key} }), or an adapter given the options), which every call and route rule shares`
            : closest && `did you mean "${closest}"?`);
  return `jitterbug: unknown option "${name}"${hint ? `${placeOf(name, owner)}: ${hint}` : ''}`;
};
