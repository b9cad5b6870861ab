/**
 * A stream request body made replayable when it fits in `bufferStreamMaxBytes`: after
 * `transformRequest`, axios sends strings, buffers, `ArrayBuffer`s, `URLSearchParams` and
 * `FormData` again unchanged on their own; only a stream is consumed by the first attempt. What
 * differs by runtime (the kind of stream a longer body is sent as) is in `#platform`.
 */

/**
 * Reads a stream body into memory when it has at most `maxBytes`: the body as bytes (a `Uint8Array`,
 * which can be sent more than once), or else as a stream of what was read and the unread rest.
 */
export type BufferRequestStream = (
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  signal?: AbortSignal,
) => Promise<unknown>;
