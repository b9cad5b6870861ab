/**
 * Request bodies as the retry decision sees them: none, replayable (sending it again sends the
 * same bytes) or a stream (consumed by the first attempt; replaying it would send nothing or half).
 * Adapters share this so that every client classifies a body the same way.
 */

/** How a request body behaves when sent again. */
export type BodyKind = 'none' | 'replayable' | 'stream';

const isAsyncIterable = (value: object): boolean =>
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

/**
 * Classifies a body value of any of the clients: strings, buffers, typed arrays, `ArrayBuffer`,
 * `DataView`, `URLSearchParams`, `Blob`, `FormData` and plain JSON data are replayable;
 * `ReadableStream`, Node streams and (async) iterables are streams.
 */
export const bodyKind = (body: unknown): BodyKind => {
  if (body === undefined || body === null) return 'none';
  if (typeof body !== 'object') return 'replayable';
  if (ArrayBuffer.isView(body) || body instanceof ArrayBuffer) return 'replayable';
  if (typeof SharedArrayBuffer !== 'undefined' && body instanceof SharedArrayBuffer) return 'replayable';
  if (body instanceof URLSearchParams) return 'replayable';
  if (typeof Blob !== 'undefined' && body instanceof Blob) return 'replayable';
  if (typeof FormData !== 'undefined' && body instanceof FormData) return 'replayable';
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) return 'stream';
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return 'stream';
  if (isAsyncIterable(body)) return 'stream';
  // A generator or other iterator is consumed by reading it; a Map, a Set or an array is data.
  if (
    typeof (body as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function' &&
    typeof (body as { next?: unknown }).next === 'function'
  ) {
    return 'stream';
  }
  return 'replayable';
};

/** The result of {@link bufferStream}. */
export type BufferedStream =
  | {
      /** The whole stream fitted: `chunks` are all of it. */
      readonly complete: true;
      /** The stream's bytes, in order. */
      readonly chunks: readonly Uint8Array[];
      /** Their total length. */
      readonly bytes: number;
    }
  | {
      /** The stream was longer than the limit. */
      readonly complete: false;
      /** What was read before the limit was reached: send it first, then `rest`. */
      readonly chunks: readonly Uint8Array[];
      /** The total length of `chunks`. */
      readonly bytes: number;
      /** The rest of the stream, unread. */
      readonly rest: AsyncIterator<Uint8Array>;
    };

const toBytes = (chunk: unknown): Uint8Array => {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError(`jitterbug: cannot buffer a stream chunk of type ${typeof chunk}`);
};

/**
 * Reads a stream body into memory when it fits in `maxBytes`, so that it becomes replayable.
 * When it does not fit, nothing is lost: the chunks read so far and the unread rest are returned,
 * to be sent in order as one (non-replayable) stream.
 *
 * When `signal` aborts, rejects at once with its reason and closes the stream (a source that never
 * ends must not hold the caller).
 */
export const bufferStream = async (
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<BufferedStream> => {
  // Read chunk by chunk and closed at once, even while a read is pending (an async iterator's own
  // `return()` waits for that read, which may never come): a web stream is read with a reader,
  // which `cancel()` interrupts; a Node stream is destroyed; any other async iterable returned.
  const reader = (stream as Partial<ReadableStream<unknown>>).getReader?.();
  const iterator = reader ? undefined : stream[Symbol.asyncIterator]();
  const node = stream as { destroy?: () => void };
  const read = (): Promise<IteratorResult<unknown>> =>
    reader ? (reader.read() as Promise<IteratorResult<unknown>>) : iterator!.next();
  const close = (): Promise<unknown> =>
    Promise.resolve()
      .then((): unknown => (reader ? reader.cancel() : node.destroy ? node.destroy() : iterator!.return?.()))
      .catch(() => undefined);
  // The abort rejects the read in progress itself: the caller is released in the same turn.
  let failRead: ((reason: unknown) => void) | undefined;
  const onAbort = (): void => {
    void close();
    failRead?.(signal!.reason);
  };
  if (signal?.aborted) {
    onAbort();
    throw signal.reason;
  }
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const next = await new Promise<IteratorResult<unknown>>((resolve, reject) => {
        failRead = reject;
        read().then(resolve, reject);
      });
      if (next.done) return { complete: true, chunks, bytes };
      const chunk = toBytes(next.value);
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes > maxBytes) {
        const rest: AsyncIterator<Uint8Array> = {
          next: async () => {
            const r = await read();
            return r.done ? { done: true, value: undefined } : { done: false, value: toBytes(r.value) };
          },
          return: async () => {
            await close();
            return { done: true, value: undefined };
          },
        };
        return { complete: false, chunks, bytes, rest };
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
};

/**
 * {@link bufferStream} for clients that send web streams (fetch, axios' fetch adapter): one
 * `Uint8Array` when the stream fits in `maxBytes`; else a new `ReadableStream` of what was read and
 * then the unread rest, to be sent once.
 */
export const bufferWebStream = async (
  stream: AsyncIterable<unknown>,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>> => {
  const buffered = await bufferStream(stream, maxBytes, signal);
  const { chunks } = buffered;
  if (buffered.complete) {
    const all = new Uint8Array(buffered.bytes);
    let offset = 0;
    for (const chunk of chunks) {
      all.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return all;
  }
  let read = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next =
        read < chunks.length ? { done: false, value: chunks[read++]! } : await buffered.rest.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await buffered.rest.return?.();
    },
  });
};
