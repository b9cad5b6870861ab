/**
 * A stream request body made replayable when it fits in `bufferStreamBytes`: after
 * `transformRequest`, axios sends strings, buffers, `ArrayBuffer`s, `URLSearchParams` and
 * `FormData` again unchanged on their own; only a stream is consumed by the first attempt.
 */
import { Readable } from 'node:stream';
import { bufferStream } from '@jitterbug/core/adapter';

/** The body to send on every attempt, and whether it can be sent more than once. */
export interface PreparedBody {
  readonly data: unknown;
  readonly replayable: boolean;
}

async function* replay(
  chunks: readonly Uint8Array[],
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  yield* chunks;
  try {
    for (let next = await rest.next(); !next.done; next = await rest.next()) yield next.value;
  } finally {
    await rest.return?.();
  }
}

/**
 * Reads a stream body into one `Buffer` when it has at most `maxBytes`. A longer stream is not
 * lost: what was read and the unread rest are sent in order, once, as a new stream. When `signal`
 * aborts, rejects at once with its reason and closes the source.
 */
export const bufferRequestStream = async (
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<PreparedBody> => {
  const buffered = await bufferStream(stream, maxBytes, signal);
  if (buffered.complete) return { data: Buffer.concat(buffered.chunks), replayable: true };
  return {
    data: Readable.from(replay(buffered.chunks, buffered.rest), { objectMode: false }),
    replayable: false,
  };
};
