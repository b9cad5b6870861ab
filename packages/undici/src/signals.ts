/**
 * What undici's failures say, in the core's terms: whether an attempt provably never reached the
 * server's application (so that the core may send it again whatever its method: gRPC's gRFC A6
 * "transparent retries", RFC 9113 §8.7), and a code for the HTTP/2 stream failures undici reports
 * without one. Only unambiguous signals are read; what each client shows for each fault is recorded
 * against real servers in `test/support/signals-*.test.ts`.
 *
 * Proof that the server never processed a request:
 *
 * - **No `onRequestStart`** (read by the request, which sees the attempt's events): undici calls a
 *   handler's `onRequestStart` once the request has a connection (an HTTP/1.1 socket, an HTTP/2
 *   session), before it writes anything. A failure undici reports before that, and after the
 *   dispatch call returned (a dispatch that fails at once is an invalid request, not a connection),
 *   is one of a connection never made: refused, no such host, a connect timeout
 *   (`UND_ERR_CONNECT_TIMEOUT`, which covers the TLS handshake), a TLS handshake that failed or was
 *   reset (a plain `ECONNRESET`, ambiguous by its code alone).
 * - **RST_STREAM `REFUSED_STREAM`**: Node's `ERR_HTTP2_STREAM_ERROR`, with `http2ErrorCode: 7`
 *   (undici 8) or only its message naming `NGHTTP2_REFUSED_STREAM` (undici 7).
 * - **GOAWAY below the request's stream**, undici 8 only: an `InformationalError`
 *   (`UND_ERR_INFO`) `HTTP/2: "GOAWAY" frame received with code 0`, which undici 8 gives only to
 *   requests whose stream is above the GOAWAY's last stream id (or has none yet); the others go on.
 *   Not read: undici 8's `SocketError` for a GOAWAY with an error code, which is undici 7's for every
 *   stream of the connection, one the server goes on to answer too: ambiguous.
 */
import { errorCode } from '@jitterbug/core/adapter';

/** `NGHTTP2_REFUSED_STREAM`. */
const REFUSED_STREAM = 7;
const REFUSED_STREAM_MESSAGE = 'Stream closed with error code NGHTTP2_REFUSED_STREAM';
const GOAWAY_BELOW_MESSAGE = 'HTTP/2: "GOAWAY" frame received with code 0';
/**
 * undici's `InformationalError`s (7 and 8) for a stream the server closed before its response: an
 * RST_STREAM `CANCEL` (or `NO_ERROR`), or its end of the stream with no response.
 */
const STREAM_CLOSED_MESSAGES: ReadonlySet<unknown> = new Set([
  'HTTP/2: stream closed before the response was complete',
  'HTTP/2: stream half-closed (remote)',
]);

interface ErrorFields {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly http2ErrorCode?: unknown;
}

const fields = (error: unknown): ErrorFields | undefined =>
  typeof error === 'object' && error !== null ? (error as ErrorFields) : undefined;

/**
 * Node's codes for a server certificate it does not trust (OpenSSL's verify errors, and its own for
 * a name that does not match): nothing was sent, but sending again cannot help, so such a failure is
 * not taken as proof for a transparent retry (it is then an ordinary error, not in `errorCodes`).
 */
const CERTIFICATE_CODES: ReadonlySet<string | undefined> = new Set([
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/** Whether a failure is a certificate the client does not trust (its code, on the error or its cause). */
export const untrustedCertificate = (error: unknown): boolean => CERTIFICATE_CODES.has(errorCode(error));

/** Whether the server refused the request unprocessed: `REFUSED_STREAM`, or undici 8's GOAWAY below it. */
export const refusedUnprocessed = (error: unknown): boolean => {
  const e = fields(error);
  if (e?.code === 'ERR_HTTP2_STREAM_ERROR')
    return e.http2ErrorCode === REFUSED_STREAM || e.message === REFUSED_STREAM_MESSAGE;
  return e?.code === 'UND_ERR_INFO' && e.message === GOAWAY_BELOW_MESSAGE;
};

/**
 * The code the core reads for a failure before the response, when undici's own says too little:
 * `ERR_HTTP2_STREAM_ERROR` (Node's code for a stream closed by an RST_STREAM, which undici gives as
 * is for `INTERNAL_ERROR` and the like) for the stream closes undici reports as a generic
 * `UND_ERR_INFO`. Ambiguous like a reset: the server had the request. `undefined`: the error's own.
 */
export const streamErrorCode = (error: unknown): string | undefined => {
  const e = fields(error);
  return e?.code === 'UND_ERR_INFO' && STREAM_CLOSED_MESSAGES.has(e.message)
    ? 'ERR_HTTP2_STREAM_ERROR'
    : undefined;
};

/**
 * A delivered body that ended before the length its response declared: the error undici 8 gives
 * for it (`UND_ERR_RES_CONTENT_LENGTH_MISMATCH`, same message), where undici 7 over HTTP/2 gives
 * none.
 */
export class ResponseLengthError extends Error {
  readonly code = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';
  /** Body bytes received, and declared by `content-length`. */
  readonly received: number;
  readonly declared: number;

  constructor(received: number, declared: number) {
    super('Response body length does not match content-length header');
    this.name = 'ResponseContentLengthMismatchError';
    this.received = received;
    this.declared = declared;
  }
}
