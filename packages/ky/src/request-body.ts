/**
 * Stream request bodies. ky turns every body into a `Request`; a `ReadableStream` body can only be
 * sent once, so it is replaced by its bytes when it fits in `bufferStreamBytes` (and could be
 * retried at all), and otherwise sent as it is, once.
 */
import { bufferStream } from '@jitterbug/core';

/** A replacement request whose body replays, or a stream that sends the buffered prefix then the rest. */
export interface PreparedBody {
  readonly request: Request;
  readonly replayable: boolean;
}

const concat = (chunks: readonly Uint8Array[], bytes: number): Uint8Array<ArrayBuffer> => {
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
};

const resume = (
  chunks: readonly Uint8Array[],
  rest: AsyncIterator<Uint8Array>,
): ReadableStream<Uint8Array> => {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index++]!);
        return;
      }
      const next = await rest.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await rest.return?.();
    },
  });
};

/**
 * Reads `request`'s stream body up to `maxBytes` and returns a request to send instead: with the
 * bytes as body when the whole stream fitted, else with a stream that sends what was read and then
 * the unread rest, in order. The original request's body is consumed either way. When `signal`
 * aborts, rejects at once with its reason (the caller must not wait for a slow source).
 */
export const bufferRequestBody = async (
  request: Request,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<PreparedBody> => {
  const body = request.body;
  if (body === null) return { request, replayable: true };
  const buffered = await bufferStream(body, maxBytes, signal);
  if (buffered.complete) {
    return {
      request: new Request(request, { body: concat(buffered.chunks, buffered.bytes) }),
      replayable: true,
    };
  }
  const stream = resume(buffered.chunks, buffered.rest);
  return {
    request: new Request(request, { body: stream, duplex: 'half' } as RequestInit),
    replayable: false,
  };
};
