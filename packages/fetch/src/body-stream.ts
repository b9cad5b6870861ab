/** A stream body read into memory: the whole of it as bytes, or what was read followed by the rest. */

/** The chunks joined into one array. */
export const bytesOf = (chunks: readonly Uint8Array[], bytes: number): Uint8Array<ArrayBuffer> => {
  const all = new Uint8Array(bytes);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
};

/** A stream of the chunks already read and then the unread rest, in order (sent once). */
export const prefixThenRest = (
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
