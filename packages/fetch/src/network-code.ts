/**
 * The code the core reads for a fetch failure that carries none: browsers, Deno and workerd reject
 * every network failure with a bare `TypeError`, and a body that breaks errors its stream the same way.
 */
import { errorCode } from '@jitterbug/core/adapter';
import type { Call } from './call.ts';

const isTypeError = (error: unknown): boolean =>
  error instanceof TypeError || (error as { name?: unknown } | null)?.name === 'TypeError';

/**
 * `ERR_NETWORK` for a code-less `TypeError` ("Failed to fetch", "NetworkError when attempting to
 * fetch resource.", "Load failed"), unless the request itself is malformed (fetch rejects bad input
 * with a `TypeError` too, and that is the caller's to fix); `undefined` when the error has a code of
 * its own (the core reads it) or is something else.
 */
export const networkCode = (error: unknown, call: Call): string | undefined => {
  if (errorCode(error) !== undefined || !isTypeError(error)) return undefined;
  return call.isMalformed() ? undefined : 'ERR_NETWORK';
};
