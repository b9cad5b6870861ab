/**
 * The error for a final retryable status, for code moving from undici's `RetryAgent` or
 * `interceptors.retry()`, which reject with `RequestRetryError` (`UND_ERR_REQ_RETRY`) once their
 * retries on a status are used up, where jitterbug by default hands the last response over.
 */
import type { HeaderRecord } from './types.ts';

/**
 * An error class constructed as undici's `RequestRetryError` is at run time (undici 7 and 8):
 * `(message, statusCode, { headers, data: { count } })`. Typed loosely because undici's own `.d.ts`
 * declares that constructor as `(message, statusCode, headers?, body?)`, which its code does not take.
 */
export type StatusErrorClass = new (message: string, statusCode: number, ...details: never[]) => Error;

type RuntimeShape = new (
  message: string,
  statusCode: number,
  details: { headers: HeaderRecord; data: { count: number } },
) => Error;

/**
 * jitterbug's own error with `RequestRetryError`'s fields: `name` `'RequestRetryError'`, `code`
 * `'UND_ERR_REQ_RETRY'`, `statusCode`, `headers`, `data.count` (the attempts made).
 */
export class RetryStatusError extends Error {
  /** `'UND_ERR_REQ_RETRY'`, as undici's. */
  readonly code = 'UND_ERR_REQ_RETRY';
  /** The last attempt's status. */
  readonly statusCode: number;
  /** The last attempt's response headers. */
  readonly headers: HeaderRecord;
  /** As undici's `RequestRetryError.data`. */
  readonly data: {
    /** The attempts made. */
    readonly count: number;
  };
  constructor(
    message: string,
    statusCode: number,
    details: { headers: HeaderRecord; data: { count: number } },
  ) {
    super(message);
    this.name = 'RequestRetryError';
    this.statusCode = statusCode;
    this.headers = details.headers;
    this.data = details.data;
  }
}

/** The error to fail a request with after a final retryable status. */
export const statusError = (
  Class: StatusErrorClass,
  statusCode: number,
  headers: HeaderRecord,
  count: number,
): Error =>
  new (Class as unknown as RuntimeShape)('Request failed', statusCode, { headers, data: { count } });
