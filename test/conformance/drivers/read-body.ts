/**
 * Reads a response body the way a caller would, to its end or to its error, keeping what arrived
 * before an error: a resumed body must never hand over a byte it should not have (another
 * representation's, or past the length declared), and the part before the error shows it.
 */
import type { ConformanceOutcome } from '../driver.ts';

type Read =
  | { readonly failed: false; readonly text: string }
  | { readonly failed: true; readonly text: string; readonly error: unknown };

const read = async (chunks: AsyncIterable<Uint8Array>): Promise<Read> => {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
    return { failed: false, text: text + decoder.decode() };
  } catch (error) {
    return { failed: true, text, error };
  }
};

/** A web `ReadableStream` body (fetch, ky); `null` reads as empty. */
const webChunks = async function* (body: ReadableStream<Uint8Array> | null): AsyncIterable<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    yield value;
  }
};

/** The caller's outcome once the body of a response handed over with `status` and `headers` is read. */
export const readOutcome = async (
  status: number,
  headers: Headers,
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null,
): Promise<ConformanceOutcome> => {
  const got = await read(body === null || body instanceof ReadableStream ? webChunks(body) : body);
  return got.failed
    ? { kind: 'error', error: got.error, partial: got.text }
    : { kind: 'response', status, body: got.text, headers };
};
