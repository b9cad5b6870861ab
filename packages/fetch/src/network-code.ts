/**
 * The code the core reads for a fetch failure that carries none: browsers and Deno reject every
 * network failure with a bare `TypeError`, workerd with an `Error` of its own (`Network connection
 * lost.`, marked `retryable`), and a body that breaks errors its stream the same way. Only the runtimes' own words for a network failure are
 * read as one (the list `is-network-error` and ky keep, checked in the runtime matrix): any other
 * `TypeError` — a bug in a fetch wrapper or polyfill (`Cannot read properties of undefined`), a
 * malformed request, "Illegal invocation" — is the caller's to see at once, never retried.
 */
import { errorCode } from '@jitterbug/core/adapter';

/** What each runtime's fetch says when the network failed. */
const NETWORK_FAILURES: ReadonlySet<unknown> = new Set([
  'Failed to fetch', // Chromium, Edge
  'network error', // Chromium, a body that broke
  'NetworkError when attempting to fetch resource.', // Firefox
  'Load failed', // Safari 17+
  'The Internet connection appears to be offline.', // Safari 16
  'Network request failed', // React Native, whatwg-fetch, cross-fetch
  'fetch failed', // undici: Node's and undici's fetch, and Deno's
  'terminated', // undici: a body cut off mid-way
]);

interface ErrorFields {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly cause?: { readonly message?: unknown } | null;
  readonly retryable?: unknown;
}

/**
 * `ERR_NETWORK` for an error that a runtime's fetch gives for a network failure and that carries no
 * code (the core reads one that does); `undefined` for anything else. Node refuses a port it blocks
 * (`fetch failed` caused by `bad port`): not a network failure either. (Chromium and Firefox say
 * nothing different for one: there it reads as a network failure.)
 */
export const networkCode = (error: unknown): string | undefined => {
  if (errorCode(error) !== undefined || typeof error !== 'object' || error === null) return undefined;
  const { name, message, cause, retryable } = error as ErrorFields;
  const network =
    name === 'Error'
      ? // workerd's lost or refused connection: an `Error` it marks `retryable` (a KJ DISCONNECTED),
        // and nothing else with that flag.
        retryable === true && message === 'Network connection lost.'
      : name === 'TypeError' && NETWORK_FAILURES.has(message) && cause?.message !== 'bad port';
  return network ? 'ERR_NETWORK' : undefined;
};
