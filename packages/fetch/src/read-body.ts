/**
 * A stream request body read into memory so that it can be sent again: whole when it fits the
 * limit, else what was read followed by the unread rest, as one stream sent once. Web streams and
 * async iterables (which Node, Deno and Bun's fetch take) alike.
 */

type Chunk = Uint8Array<ArrayBuffer>;

const encoder = new TextEncoder();
const toBytes = (chunk: unknown): Chunk =>
  typeof chunk === 'string'
    ? encoder.encode(chunk)
    : new Uint8Array((chunk as Chunk).buffer, (chunk as Chunk).byteOffset, (chunk as Chunk).byteLength);

/**
 * Reads `body` up to `maxBytes`. Resolves with the bytes when it ended within the limit, else with a
 * stream of the part read and the rest. When `signal` aborts, rejects at once with its reason and
 * closes the source (a source that never ends must not hold the caller).
 */
export const readUpTo = async (
  body: ReadableStream<unknown> | AsyncIterable<unknown>,
  maxBytes: number,
  signal: AbortSignal | null | undefined,
): Promise<Chunk | ReadableStream<Uint8Array>> => {
  const reader = 'getReader' in body ? body.getReader() : undefined;
  const iterator = reader ? undefined : body[Symbol.asyncIterator]();
  const next = (): Promise<IteratorResult<unknown>> =>
    reader ? (reader.read() as Promise<IteratorResult<unknown>>) : iterator!.next();
  const close = (): void => {
    Promise.resolve(reader ? reader.cancel() : iterator!.return?.()).catch(() => undefined);
  };
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      close();
      reject(signal!.reason);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  const chunks: Chunk[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const result = await Promise.race([next(), aborted]);
      if (result.done) break;
      const chunk = toBytes(result.value);
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (bytes > maxBytes) {
        let index = 0;
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            const rest = index < chunks.length ? { done: false, value: chunks[index++] } : await next();
            if (rest.done) controller.close();
            else controller.enqueue(toBytes(rest.value));
          },
          cancel: close,
        });
      }
    }
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
};
