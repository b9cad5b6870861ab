/**
 * Makes a stream request body replayable when the options allow it, before the first attempt.
 * Replayable bodies (strings, bytes, `FormData`, …) are left alone: undici sends them again as is.
 */
import {
  type BufferedStream,
  bufferStream,
  type HeaderGetter,
  mayRetry,
  type RetryRun,
} from '@jitterbug/core';
import { declaredLength } from './request-info.ts';
import type { DispatchOpts } from './types.ts';

const isNodeOrWebStream = (body: object): boolean =>
  typeof (body as { pipe?: unknown }).pipe === 'function' ||
  (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream);

/**
 * `fetch` turns every body (a string too) into an async generator before it reaches the
 * dispatcher, and declares its length when the source had one. Such a body came from a string,
 * bytes, `URLSearchParams`, `Blob` or `FormData`: reading it into memory only copies what the caller
 * already holds. A Node or web stream is the caller's own stream and keeps the core's
 * `bufferStreamBytes` rule alone.
 */
const knownLength = (body: unknown, headers: HeaderGetter, limit: number): number | undefined => {
  if (limit <= 0 || typeof body !== 'object' || body === null || isNodeOrWebStream(body)) return undefined;
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return undefined;
  const length = declaredLength(headers);
  return length !== undefined && length <= limit ? length : undefined;
};

const toAsyncIterable = (body: unknown): AsyncIterable<unknown> => {
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function') {
    return body as AsyncIterable<unknown>;
  }
  const iterable = body as Iterable<unknown>;
  return (async function* () {
    yield* iterable;
  })();
};

// The prefix read while trying to buffer, then the unread rest: one stream, in order, sent once.
async function* prefixThenRest(
  buffered: Extract<BufferedStream, { complete: false }>,
): AsyncGenerator<Uint8Array> {
  yield* buffered.chunks;
  try {
    for (;;) {
      const next = await buffered.rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await buffered.rest.return?.();
  }
}

/**
 * The options to dispatch: `opts` itself (synchronously) when nothing needs buffering, else a
 * promise of a copy whose body is the buffered bytes (and the run's body marked replayable) or,
 * past the limit, the read prefix followed by the rest of the stream.
 */
export const prepareBody = (
  opts: DispatchOpts,
  run: RetryRun,
  headers: HeaderGetter,
  knownLengthBodyBytes: number,
): DispatchOpts | Promise<DispatchOpts> => {
  if (run.body !== 'stream') return opts;
  const known = knownLength(opts.body, headers, knownLengthBodyBytes);
  const limit = Math.max(run.options.bufferStreamBytes, known ?? 0);
  if ((limit <= 0 && known === undefined) || !mayRetry(run.options, run.method, headers)) return opts;
  return bufferStream(toAsyncIterable(opts.body), limit).then((buffered): DispatchOpts => {
    if (!buffered.complete) return { ...opts, body: prefixThenRest(buffered) };
    run.body = 'replayable';
    return { ...opts, body: Buffer.concat(buffered.chunks as Uint8Array[]) };
  });
};
