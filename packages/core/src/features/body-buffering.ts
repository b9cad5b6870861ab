/**
 * Stream-body buffering, from `createBodyBuffering()`: a request whose body is a stream (a
 * `ReadableStream`, a Node stream, an async iterable) and that may be sent more than once has its
 * body read into memory first, when it fits `maxBytes`, so that a retry sends the same bytes again.
 * Without it, such a body is sent once: the first attempt consumes it, and the run stops instead of
 * retrying (`reason: 'body-not-replayable'`). A factory, so that a program that never buffers a
 * stream does not carry the reader (`body.ts`).
 */
import { type BufferedStream, bufferStream, bufferWebStream } from '../body.ts';
import { checkFields, numberCheck } from '../option-error.ts';
import { branded } from './feature.ts';

/** The options of `createBodyBuffering(options)`. */
export interface BodyBufferingOptions {
  /**
   * A stream body up to this many bytes is read into memory and sent again on a retry; a longer one
   * is sent once, whole and in order (what was read, then the unread rest). Default 1 MiB.
   */
  readonly maxBytes?: number;
}

/** What `createBodyBuffering()` returns: the limit, and the readers the adapters call. */
export interface BodyBuffering {
  /** The most bytes a stream body is read ahead. */
  readonly maxBytes: number;
  /**
   * Reads `stream` into memory within `maxBytes` (see {@link BufferedStream}); when `signal` aborts,
   * rejects at once with its reason and closes the stream.
   */
  read(stream: AsyncIterable<unknown>, signal?: AbortSignal): Promise<BufferedStream>;
  /**
   * {@link read} for clients that send web streams: one `Uint8Array` when the stream fits, else a
   * `ReadableStream` of what was read and then the unread rest, to be sent once.
   */
  readWeb(
    stream: AsyncIterable<unknown>,
    signal?: AbortSignal,
  ): Promise<Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>>;
}

/** The `bodyBuffering` option, as the feature table's row puts it in the public options. */
export interface BodyBufferingOption {
  /**
   * `createBodyBuffering({ maxBytes? })`: a stream request body that fits is read into memory
   * first, so that a retry sends the same bytes again. Default off (`false`): a stream body is sent
   * once, and a failure that would be retried stops with `reason: 'body-not-replayable'`.
   */
  readonly bodyBuffering?: BodyBuffering | false;
}

/**
 * Creates stream-body buffering for the `bodyBuffering` option.
 *
 * @throws TypeError naming `maxBytes` when it is not a number of at least 0.
 */
export const createBodyBuffering = (options: BodyBufferingOptions = {}): BodyBuffering => {
  const { maxBytes } = checkFields(
    options,
    'createBodyBuffering(options)',
    { maxBytes: 1_048_576 },
    {
      maxBytes: numberCheck(0),
    },
  ) as { maxBytes: number };
  return branded(
    {
      maxBytes,
      read: (stream: AsyncIterable<unknown>, signal?: AbortSignal) => bufferStream(stream, maxBytes, signal),
      readWeb: (stream: AsyncIterable<unknown>, signal?: AbortSignal) =>
        bufferWebStream(stream, maxBytes, signal),
    },
    'bodyBuffering',
  );
};
