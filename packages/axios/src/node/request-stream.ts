/**
 * `bufferRequestStream` in Node: the body as one `Buffer`, or (too long) a Node `Readable` of what
 * was read and the rest, which both of axios' Node adapters (http and fetch) send.
 */
import { Readable } from 'node:stream';
import type { BufferRequestStream } from '../request-body.ts';

/** The chunks already read, then the unread rest: a longer stream is sent once, whole and in order. */
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
 * Reads a stream body into one `Buffer` when it fits `buffering.maxBytes`. A longer stream is not
 * lost: what was read and the unread rest are sent in order, once, as a new stream. When `signal`
 * aborts, rejects at once with its reason and closes the source.
 */
export const bufferRequestStream: BufferRequestStream = async (stream, buffering, signal) => {
  const buffered = await buffering.read(stream, signal);
  if (buffered.complete) return Buffer.concat(buffered.chunks);
  return Readable.from(replay(buffered.chunks, buffered.rest), { objectMode: false });
};
