/**
 * A stream request body made replayable, with `bodyBuffering`, when it fits its `maxBytes`: after
 * `transformRequest`, axios sends strings, buffers, `ArrayBuffer`s, `URLSearchParams` and
 * `FormData` again unchanged on their own; only a stream is consumed by the first attempt. What
 * differs by runtime (the kind of stream a longer body is sent as) is in `#platform`.
 */
import type { BodyBuffering } from '@jitterbug/core';

/**
 * Reads a stream body into memory with `buffering` when it fits: the body as bytes (a `Uint8Array`,
 * which can be sent more than once), or else as a stream of what was read and the unread rest.
 */
export type BufferRequestStream = (
  stream: AsyncIterable<unknown>,
  buffering: BodyBuffering,
  signal?: AbortSignal,
) => Promise<unknown>;
