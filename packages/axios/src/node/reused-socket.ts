/**
 * A keep-alive race on axios' http adapter: Node sets `request.reusedSocket` on a request written
 * to a connection kept from an earlier one, and documents a reset of such a request
 * (`ECONNRESET`, or `EPIPE` for the write itself) as the race of a server closing an idle
 * connection. axios rejects with the request as the error's `request`: Node's `ClientRequest`, or
 * (when it follows redirects, its default) follow-redirects' wrapper, whose `_currentRequest` is
 * the `ClientRequest` of the hop in flight.
 */
import type { AxiosError } from 'axios';

const RACE_CODES: ReadonlySet<unknown> = new Set(['ECONNRESET', 'EPIPE']);

interface SentRequest {
  readonly reusedSocket?: unknown;
  readonly _currentRequest?: { readonly reusedSocket?: unknown } | null;
}

/** Whether axios' http adapter lost the request on a reused connection, before any byte of the answer. */
export const lostReusedSocket = (error: AxiosError): boolean => {
  if (error.response !== undefined || !RACE_CODES.has(error.code)) return false;
  const request = error.request as SentRequest | undefined;
  return (request?._currentRequest ?? request)?.reusedSocket === true;
};
