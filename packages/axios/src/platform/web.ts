/**
 * The adapter's platform part where Node's is not (browsers, workers), chosen by the `default`
 * condition of the package's `#platform` import. There is no http adapter here (axios' xhr and
 * fetch adapters are all there is), and a request stream is a web `ReadableStream`, which axios'
 * fetch adapter sends.
 */
import type { AxiosAdapter } from 'axios';
import type { BufferRequestStream } from '../request-body.ts';
import { cancelWebBody, type StreamBody } from '../response-body.ts';

/** No http adapter outside Node (axios' `getAdapter('http')` throws there), nor its bodies. */
export const httpAdapter = (): AxiosAdapter | null => null;
export const httpBody: StreamBody | undefined = undefined;

/** No http adapter, so no reused socket to tell of (the xhr and fetch adapters show none). */
export const lostReusedSocket = (): boolean => false;

/** A response's unread body dropped: outside Node only a web stream has one to cancel. */
export const destroyBody = cancelWebBody;

/**
 * Reads a stream body into one `Uint8Array` when it fits `buffering.maxBytes`. A longer stream is
 * not lost: what was read and the unread rest are sent in order, once, as a new `ReadableStream` (as
 * the fetch engine's). When `signal` aborts, rejects at once with its reason and closes the source.
 */
export const bufferRequestStream: BufferRequestStream = (stream, buffering, signal) =>
  buffering.readWeb(stream, signal);
