/**
 * Discarding a response that will be retried: its body is read and thrown away up to a byte cap so
 * that a short error body ends cleanly and its connection goes back to the pool; past the cap the
 * body is cancelled, which makes fetch close that connection rather than download the rest.
 */

/**
 * Reads and drops at most `maxBytes` of `response`'s body, then cancels whatever is left. Never
 * rejects: a body that breaks while being discarded is as good as discarded.
 */
export const discardBody = async (response: Response, maxBytes: number): Promise<void> => {
  const body = response.body;
  if (body === null) return;
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch {
    // Locked by someone else: they own it, and ky cancels its own copies.
    return;
  }
  let read = 0;
  try {
    while (read <= maxBytes) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
  } catch {
    return;
  }
  // Not awaited: ky holds the other branch of this tee'd body, and a branch's cancel settles only
  // once every branch is cancelled (ky cancels its own as soon as the hook returns).
  reader.cancel().catch(() => undefined);
};
