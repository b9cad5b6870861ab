/**
 * The problem type of a failed answer's body (RFC 9457; the RateLimit draft's types decide then):
 * read from a clone of the response, so that the response the caller may get keeps its whole body,
 * and only when it is `application/problem+json` and fits the discard limit, as a retried answer's
 * body would be drained.
 */
import { isProblemJson, problemType } from '@jitterbug/core/adapter';

/**
 * The `type` of `response`'s problem body: `undefined` at once when it has none to read (below 400,
 * another content type, a declared length past `maxBytes`, a body already taken), else a promise of
 * it that never rejects (`undefined` past `maxBytes`, or for a body that breaks or does not parse).
 */
export const readProblemType = (
  response: Response,
  maxBytes: number,
): Promise<string | undefined> | undefined => {
  if (response.status < 400 || maxBytes <= 0 || !isProblemJson(response.headers.get('content-type'))) {
    return undefined;
  }
  if (Number(response.headers.get('content-length')) > maxBytes) return undefined;
  if (!response.body || response.bodyUsed || typeof response.clone !== 'function') return undefined;
  return read(response.clone().body!.getReader(), maxBytes).catch(() => undefined);
};

/** At most `maxBytes` of a body, parsed: past that, the rest is cancelled unread. */
const read = async (reader: ReadableStreamDefaultReader<Uint8Array>, maxBytes: number) => {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return problemType(bytes, maxBytes);
};
