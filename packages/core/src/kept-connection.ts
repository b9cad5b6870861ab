/**
 * What undici (its own clients, and Node's fetch, which is undici inside) shows of a connection kept
 * alive and lost: for the adapters of the clients on it, which report it as `staleConnection`.
 */

/**
 * undici's `SocketError` messages (7 and 8) for a connection the server closed, HTTP/1.1 or HTTP/2,
 * and undici 7's for an HTTP/2 GOAWAY with `NO_ERROR`, which it gives every stream of the session
 * (a server shutting a session down gracefully: an idle timeout, a reload, a rotation). Not a
 * malformed response (`bad response`), nor undici 8's GOAWAY with an error code.
 */
const CLOSED: ReadonlySet<unknown> = new Set([
  'other side closed',
  'closed',
  'HTTP/2: "GOAWAY" frame received with code 0',
]);

/**
 * Bytes an HTTP/2 server sends on a session before any answer (its SETTINGS, the ACK of the
 * client's, a WINDOW_UPDATE), which undici counts as read: measured 18 from Node's, 30 from
 * HAProxy 2.6, 49 from nginx 1.22, 55 from Caddy 2.6, and 76 to 118 once they had answered one
 * small request. A kept HTTP/1.1 connection has read at least one whole response, a status line and
 * its headers (above 100 bytes from Node's).
 */
const HTTP2_PREFACE_BYTES = 64;

interface SocketErrorFields {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly socket?: { readonly bytesRead?: unknown } | null;
  readonly cause?: unknown;
}

/**
 * Whether a failure before any answer is undici's `SocketError` for a closed connection that had
 * answered a request before: one that read more than an HTTP/2 server's preface (undici's
 * `socket.bytesRead` counts the plain bytes read, not a TLS handshake's), lost as the next request
 * was written to it, the keep-alive race; undici shows nothing else of a connection's reuse. A new
 * connection the server drops (a failing server) reads as none. Looked for on the error and its
 * `cause` chain (fetch's `TypeError: fetch failed`), at most 5 deep.
 */
export const lostKeptConnection = (error: unknown): boolean => {
  let current = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, socket, cause } = current as SocketErrorFields;
    if (code === 'UND_ERR_SOCKET')
      return CLOSED.has(message) && Number(socket?.bytesRead) > HTTP2_PREFACE_BYTES;
    current = cause;
  }
  return false;
};
