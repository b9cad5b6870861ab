/**
 * A value as an option error shows it. Showing it must never throw (`String()` throws on
 * `Object.create(null)`, `JSON.stringify` on cycles and BigInts), or the TypeError naming the option
 * would be replaced by one that names nothing.
 */

import { isPolicyMarked } from '../policy-brand.ts';

/** A short readable description of any value, for error messages. Never throws. */
export const describeValue = (value: unknown): string => {
  if (typeof value === 'function') return 'a function';
  if (isPolicyMarked(value)) return 'a retry policy';
  if (typeof value === 'bigint') return `${value}n`;
  if (Object.is(value, -0)) return '-0';
  let shown: string | undefined;
  try {
    shown = typeof value === 'object' || typeof value === 'string' ? JSON.stringify(value) : undefined;
  } catch {}
  try {
    shown ??= String(value);
  } catch {
    return `an unprintable ${typeof value}`;
  }
  return shown.length > 80 ? `${shown.slice(0, 80)}… (${shown.length} characters)` : shown;
};
