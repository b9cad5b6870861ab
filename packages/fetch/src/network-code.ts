/**
 * The code the core reads for a fetch failure that carries none: browsers and Deno reject every
 * network failure with a bare `TypeError`, workerd with a bare `Error` of its own (below), and a body
 * that breaks errors its stream the same way.
 */
import { errorCode } from '@jitterbug/core/adapter';
import type { Call } from './call.ts';

const isTypeError = (error: unknown): boolean =>
  error instanceof TypeError || (error as { name?: unknown } | null)?.name === 'TypeError';

/**
 * workerd's lost or refused connection: `Error: Network connection lost.` with `retryable: true`,
 * which workerd itself sets on the error it makes for a disconnection (a KJ `DISCONNECTED`
 * exception) and on nothing else. Bad input is a `TypeError` there, as everywhere; its other
 * failures (a host that does not resolve: `internal error; reference = …`) carry no such mark and
 * stay unrecognised, since nothing tells them from workerd's own faults.
 */
const isWorkerdDisconnection = (error: unknown): boolean =>
  typeof error === 'object' &&
  error !== null &&
  (error as { retryable?: unknown }).retryable === true &&
  (error as { message?: unknown }).message === 'Network connection lost.';

/**
 * `ERR_NETWORK` for a code-less `TypeError` ("Failed to fetch", "NetworkError when attempting to
 * fetch resource.", "Load failed"), unless the request itself is malformed (fetch rejects bad input
 * with a `TypeError` too, and that is the caller's to fix), and for workerd's disconnection;
 * `undefined` when the error has a code of its own (the core reads it) or is something else.
 */
export const networkCode = (error: unknown, call: Call): string | undefined => {
  if (errorCode(error) !== undefined) return undefined;
  if (isWorkerdDisconnection(error)) return 'ERR_NETWORK';
  if (!isTypeError(error)) return undefined;
  return call.isMalformed() ? undefined : 'ERR_NETWORK';
};
