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
 *   (`UND_ERR_INFO`) `HTTP/2: "GOAWAY" frame received with code 0`. undici 8's `client-h2.js`
 *   (`onHttp2SessionGoAway`) makes it only for a GOAWAY with code `NO_ERROR`, and gives it only to
 *   requests whose stream is above the GOAWAY's last stream id or has no id yet, that it does not
 *   send again itself (a body it cannot replay, or its one replay after a GOAWAY spent); streams at
 *   or below the last id go on. Against nginx rotating connections, every request that got it was
 *   absent from nginx's log and the backend's (`test/nginx/`).
 * - **HEADERS never written**: an `InformationalError` (`UND_ERR_INFO`, undici 7 and 8)
 *   `HTTP/2: "frameError" received - type 1, code …`: Node could not send the stream's HEADERS
 *   frame (type 1), as after a GOAWAY that arrived once the stream was opened (undici 8, when it
 *   does not replay the request itself). undici sends no request trailers and a connection's own
 *   frames (stream 0) are never HEADERS, so it is always the request's HEADERS.
 *
 * A keep-alive race proves nothing (the server may have had the request): it is reported apart, as
 * `staleConnection` (see `failedAttempt`).
 *
 * Not read as proof: undici 8's `SocketError` for a GOAWAY with an error code; and undici 7's (also
 * Node 24's bundled 7.29) `SocketError('HTTP/2: "GOAWAY" frame received with code 0')`: undici 7
 * ignores the last stream id, gives that error to the request at the head of its queue and to the
 * streams its closing socket cuts, so it reaches requests the server processed (most of them,
 * against nginx) as well as ones it never saw: ambiguous, and so a keep-alive race.
 */
import { type AttemptResult, errorCode, lostKeptConnection } from '@jitterbug/core/adapter';

/** `NGHTTP2_REFUSED_STREAM`. */
const REFUSED_STREAM = 7;
const REFUSED_STREAM_MESSAGE = 'Stream closed with error code NGHTTP2_REFUSED_STREAM';
const GOAWAY_BELOW_MESSAGE = 'HTTP/2: "GOAWAY" frame received with code 0';
/** undici's message for a frame Node could not send, when that frame is the stream's HEADERS (type 1). */
const UNSENT_HEADERS_PREFIX = 'HTTP/2: "frameError" received - type 1,';
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

/**
 * Whether the server provably never had the request: `REFUSED_STREAM`, undici 8's GOAWAY below its
 * stream, or its HEADERS never written.
 */
export const refusedUnprocessed = (error: unknown): boolean => {
  const e = error as ErrorFields | null | undefined;
  if (e?.code === 'ERR_HTTP2_STREAM_ERROR')
    return e.http2ErrorCode === REFUSED_STREAM || e.message === REFUSED_STREAM_MESSAGE;
  if (e?.code !== 'UND_ERR_INFO' || typeof e.message !== 'string') return false;
  return e.message === GOAWAY_BELOW_MESSAGE || e.message.startsWith(UNSENT_HEADERS_PREFIX);
};

/**
 * The code the core reads for a failure before the response, when undici's own says too little:
 * `ERR_HTTP2_STREAM_ERROR` (Node's code for a stream closed by an RST_STREAM, which undici gives as
 * is for `INTERNAL_ERROR` and the like) for the stream closes undici reports as a generic
 * `UND_ERR_INFO`. Ambiguous like a reset: the server had the request. `undefined`: the error's own.
 */
export const streamErrorCode = (error: unknown): string | undefined => {
  const e = error as ErrorFields | null | undefined;
  return e?.code === 'UND_ERR_INFO' && STREAM_CLOSED_MESSAGES.has(e.message)
    ? 'ERR_HTTP2_STREAM_ERROR'
    : undefined;
};

/**
 * Whether an attempt's (or a hedged copy's) failure proves that the server never processed it: it
 * failed before undici started it (`started`: its `onRequestStart`), and not from inside the dispatch
 * call (`sending`: an invalid request), or the server refused it. An untrusted certificate is not
 * sent again: nothing was written, but it would fail the same way.
 */
export const provesUnprocessed = (started: boolean, sending: boolean, error: Error): boolean =>
  (!started && !sending && !untrustedCertificate(error)) || refusedUnprocessed(error);

/** An attempt that failed with no response, in the core's terms. */
export type Failure = Extract<AttemptResult, { readonly error: unknown }>;

/**
 * A failed attempt in the core's terms (`aborted`: by the caller, which is all there is to say). A
 * failure that proves nothing may still be a keep-alive race: a `SocketError` for a connection that
 * had answered before (`lostKeptConnection`), reported as `staleConnection`, which the core retries
 * as any reset for a request that may be sent twice, free of the budget while the servers answer
 * fine. A plain `ECONNRESET` carries no socket counts, and reads as any reset.
 */
export const failedAttempt = (error: Error, unprocessed: boolean, aborted: boolean): Failure => {
  if (aborted) return { error, aborted };
  const code = streamErrorCode(error);
  const result: Failure = code === undefined ? { error } : { error, code };
  if (unprocessed) return { ...result, unprocessed };
  return lostKeptConnection(error) ? { ...result, staleConnection: true } : result;
};
