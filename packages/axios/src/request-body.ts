/**
 * A stream request body made replayable when it fits in `bufferStreamMaxBytes`: after
 * `transformRequest`, axios sends strings, buffers, `ArrayBuffer`s, `URLSearchParams` and
 * `FormData` again unchanged on their own; only a stream is consumed by the first attempt. What
 * differs by runtime (the kind of stream a longer body is sent as) is in `#platform`.
 */

/** The body to send on every attempt, and whether it can be sent more than once. */
export interface PreparedBody {
  readonly data: unknown;
  readonly replayable: boolean;
}

/** Reads a stream body into memory when it has at most `maxBytes` (see `bufferRequestStream`). */
export type BufferRequestStream = (
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  signal?: AbortSignal,
) => Promise<PreparedBody>;
