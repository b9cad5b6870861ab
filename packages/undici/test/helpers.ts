/** Test helpers: an instant, recording sleep that still honours an abort signal; a body read to its end or error. */
import type { Sleep } from '@jitterbug/core';

export interface RecordingSleep {
  readonly sleep: Sleep;
  /** Every delay requested, in order. */
  readonly delays: number[];
}

/** Resolves at once (on the next tick) unless the signal aborts first; records the requested ms. */
export const recordingSleep = (): RecordingSleep => {
  const delays: number[] = [];
  const sleep: Sleep = (ms, signal) => {
    delays.push(ms);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve) => setImmediate(resolve));
  };
  return { sleep, delays };
};

/** A sleep that never ends by itself: only the signal ends it (with its reason). */
export const endlessSleep = (): RecordingSleep => {
  const delays: number[] = [];
  const sleep: Sleep = (ms, signal) => {
    delays.push(ms);
    return new Promise((_resolve, reject) => {
      if (signal?.aborted) reject(signal.reason);
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
  };
  return { sleep, delays };
};

/** Reads `body` (undici `request()`'s) to its end or its error: the bytes it gave, and the error. */
export const readBody = async (body: AsyncIterable<unknown>): Promise<{ bytes: Buffer; error: unknown }> => {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { bytes: Buffer.concat(chunks), error: undefined };
  } catch (error) {
    return { bytes: Buffer.concat(chunks), error };
  }
};
