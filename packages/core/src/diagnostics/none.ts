/**
 * No channels (browsers, workerd without Node compatibility): `observed` is the constant `false`,
 * so a bundler removes every publishing branch and the bundle does not grow for them.
 */
import type { Channels } from './messages.ts';

export const observed = false;

export const channels = undefined as unknown as Channels;
