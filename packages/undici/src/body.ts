/**
 * Makes a stream request body replayable when the options allow it, before the first attempt.
 * Replayable bodies (strings, bytes, `FormData`, …) are left alone: undici sends them again as is.
 */
import type { HeaderGetter } from '@jitterbug/core';
import { type BufferedStream, bufferStream, maySendAgain, type RetryRun } from '@jitterbug/core/adapter';
import { declaredLength } from './request-info.ts';
import type { DispatchOpts } from './types.ts';

const isNodeOrWebStream = (body: object): boolean =>
  typeof (body as { pipe?: unknown }).pipe === 'function' ||
  (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream);

/**
 * Whether `fetch` itself declared the body's length. fetch hands the dispatcher the same anonymous
 * async generator for a string as for the caller's own `ReadableStream` or async iterable (undici
 * 6, 7 and 8 alike), and lets the caller set `content-length` on such a stream, so neither the body
 * nor the header's presence tells a copy of data the caller holds from a stream it reads once. Where
 * the header sits does: fetch passes its headers as a record in the order they were set, the
 * caller's first, then `accept-language` (always, set if missing before any length), then the length
 * it computed (only for a source of known length), then `sec-fetch-mode` (always). A `content-length`
 * before `accept-language` is the caller's own; one without `sec-fetch-mode` after it did not come
 * from fetch (e.g. an async iterable given to `request()`).
 */
const lengthDeclaredByFetch = (headers: unknown): boolean => {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return false;
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') return false;
  const names = Object.keys(headers).map((name) => name.toLowerCase());
  const length = names.indexOf('content-length');
  const language = names.indexOf('accept-language');
  return language !== -1 && language < length && length < names.indexOf('sec-fetch-mode');
};

/**
 * The length of a body that fetch made from a string, bytes, `URLSearchParams`, `Blob` or
 * `FormData`, when within `limit`: reading it into memory only copies what the caller already holds.
 * A caller's own stream (Node, web, async iterable; given to `request()` or to `fetch`) keeps the
 * `bodyBuffering` option's rule alone.
 */
const knownLength = (opts: DispatchOpts, headers: HeaderGetter, limit: number): number | undefined => {
  const body = opts.body;
  if (limit <= 0 || typeof body !== 'object' || body === null || isNodeOrWebStream(body)) return undefined;
  if (typeof (body as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function') return undefined;
  if (!lengthDeclaredByFetch(opts.headers)) return undefined;
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
 * Reads a stream body ahead. Resolves with a copy of the options whose body is the buffered bytes
 * (and the run's body marked replayable) or, past the limit, the read prefix followed by the rest of
 * the stream. When `signal` aborts, rejects at once with its reason and closes the stream.
 */
export type BodyReader = (signal: AbortSignal) => Promise<DispatchOpts>;

/**
 * The options to dispatch, `opts` itself, when nothing needs reading ahead; else the
 * {@link BodyReader} that prepares them.
 */
export const prepareBody = (
  opts: DispatchOpts,
  run: RetryRun,
  headers: HeaderGetter,
  knownLengthBodyMaxBytes: number,
): DispatchOpts | BodyReader => {
  if (run.body !== 'stream') return opts;
  const known = knownLength(opts, headers, knownLengthBodyMaxBytes);
  const limit = Math.max(run.options.feature.bodyBuffering?.maxBytes ?? 0, known ?? 0);
  if ((limit <= 0 && known === undefined) || !maySendAgain(run.options, run.method, headers)) return opts;
  return (signal) =>
    bufferStream(toAsyncIterable(opts.body), limit, signal).then((buffered): DispatchOpts => {
      if (!buffered.complete) return { ...opts, body: prefixThenRest(buffered) };
      run.body = 'replayable';
      return { ...opts, body: Buffer.concat(buffered.chunks as Uint8Array[]) };
    });
};
