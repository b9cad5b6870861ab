/**
 * Option errors as production and browser builds word them: a `TypeError` that names the option and
 * what it must be, without the value given or the fix (`full.ts` tells both), so that a shipped
 * bundle carries neither the describing code nor the tables of fixes.
 */
import type * as Full from './full.ts';

/** The message for option `name`, which must be `expected`. */
export const mustBe: typeof Full.mustBe = (name, expected) =>
  `jitterbug: option "${name}" must be ${expected}`;

/** The message for option `name`, which does not exist where it was given. */
export const unknownText: typeof Full.unknownText = (name) => `jitterbug: unknown option "${name}"`;
