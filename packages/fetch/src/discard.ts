/**
 * Discarding a response that will be retried: its body is read and dropped up to a byte cap, so a
 * short error body ends cleanly and its connection can serve the next attempt; past the cap the body
 * is cancelled, which makes the client close that connection rather than download the rest.
 */

/** Reads and drops at most `maxBytes` of `response`'s body, then cancels the rest. Never rejects. */
export const discardBody = async (response: Response, maxBytes: number): Promise<void> => {
  try {
    // Locked or already read by someone else (getReader throws): theirs to finish.
    const reader = response.body?.getReader();
    if (!reader) return;
    let read = 0;
    while (read <= maxBytes) {
      const chunk = await reader.read();
      if (chunk.done) return;
      read += chunk.value.byteLength;
    }
    await reader.cancel();
  } catch {
    // A body that breaks while being discarded is as good as discarded.
  }
};
