/**
 * Network errors: which are transient, and how to find their code through the wrappers each client
 * puts around them (fetch's `TypeError: fetch failed` has the socket error as `cause`; axios keeps
 * Node's `code`; undici has its own `UND_ERR_*` codes; browsers give none, see `ERR_NETWORK`).
 */

/** Error codes retried by default: failures where retrying an idempotent request is sound. */
export const DEFAULT_ERROR_CODES: readonly string[] = Object.freeze([
  'ECONNRESET', // reset by peer; also Node's "socket hang up"
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ENETDOWN',
  'EAI_AGAIN', // DNS temporary failure (ENOTFOUND is not listed: it is retried only transparently)
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
  // An HTTP/2 stream the server reset (RST_STREAM INTERNAL_ERROR, CANCEL…) before its answer: like a
  // reset connection, retried for the methods that may be sent twice.
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_JITTERBUG_ATTEMPT_TIMEOUT',
  // A fetch that failed without a code: browsers ("Failed to fetch", "Load failed", "NetworkError
  // when attempting to fetch resource."), Deno and workerd report every network failure this way,
  // and the adapters report such a failure with this code (axios: its own ERR_NETWORK).
  'ERR_NETWORK',
]);

/**
 * Error codes that prove a request never reached the server's application: the connection was never
 * established, so nothing was written (gRFC A6's "transparent retry"). A reset or a timeout after the
 * connection existed is not one of them: the server may have processed the request.
 */
export const UNPROCESSED_ERROR_CODES: readonly string[] = Object.freeze([
  'ECONNREFUSED',
  'ENOTFOUND', // no such host
  'EAI_AGAIN', // DNS temporary failure
  'UND_ERR_CONNECT_TIMEOUT', // undici: the connection (TCP, and TLS for https) was not established in time
]);

/** The error an adapter uses when one attempt took longer than `attemptTimeoutMs`. */
export class AttemptTimeoutError extends Error {
  /** Always `ERR_JITTERBUG_ATTEMPT_TIMEOUT`. */
  readonly code = 'ERR_JITTERBUG_ATTEMPT_TIMEOUT';
  /** The per-attempt timeout that expired. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`jitterbug: attempt timed out after ${timeoutMs} ms`);
    this.name = 'AttemptTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/**
 * The first string `code` found on an error or its `cause` chain (at most 5 deep), e.g.
 * `ECONNRESET` inside fetch's `TypeError: fetch failed`.
 */
export const errorCode = (error: unknown): string | undefined => {
  let current: unknown = error;
  // At most 5 causes deep: a cycle of causes must end.
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
};

/** A short readable description of an error for events and timelines: its code, else its name. */
export const describeError = (error: unknown): string => {
  const code = errorCode(error);
  if (code) return code;
  if (error instanceof Error) return error.name;
  return typeof error;
};
