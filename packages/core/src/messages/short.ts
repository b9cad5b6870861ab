/**
 * Option errors as production and browser builds word them: a `TypeError` that names the option and
 * what it must be, without the value given or the fix (`full.ts` tells both), so that a shipped
 * bundle carries neither the describing code nor the tables of fixes; and no warnings. The warnings'
 * functions are empty function declarations, whose calls bundlers (esbuild, Rollup) remove.
 */
import type * as Full from './full.ts';

/** The message for option `name`, which must be `expected`. */
export const mustBe: typeof Full.mustBe = (name, expected) =>
  `jitterbug: option "${name}" must be ${expected}`;

/** The message for option `name`, which does not exist where it was given. */
export const unknownText: typeof Full.unknownText = (name) => `jitterbug: unknown option "${name}"`;

/** Development builds warn of slips in a policy's options (`slips.ts`); these builds do not. */
export function warnSlips(_options: Record<string, unknown>): void {}

/** Development builds tell route rules that matched nothing (`unmatched-routes.ts`); these builds do not. */
export function watchRoutes(_table: Parameters<typeof Full.watchRoutes>[0]): void {}
