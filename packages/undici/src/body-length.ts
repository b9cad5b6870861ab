/**
 * What a delivered body must come to, and the error for one that does not: a body never reaches
 * the caller longer than its response declared (undici #4970: a `206` for 2 bytes carrying 70), and
 * one that ends short fails (undici 7 over HTTP/2 takes an `RST_STREAM` `CANCEL` for the end).
 */
import type { HeaderRecord } from './types.ts';

/**
 * A delivered body whose length is not the one its response declared: the error undici 8 gives when
 * it ends short (`UND_ERR_RES_CONTENT_LENGTH_MISMATCH`, same message), where undici 7 over HTTP/2
 * gives none; and the error for one that runs past it, before the extra bytes reach the caller.
 */
export class ResponseLengthError extends Error {
  readonly code = 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH';
  /** Body bytes received (with the chunk that ran past the length, when it ran long), and declared. */
  readonly received: number;
  readonly declared: number;

  constructor(received: number, declared: number) {
    super('Response body length does not match content-length header');
    this.name = 'ResponseContentLengthMismatchError';
    this.received = received;
    this.declared = declared;
  }
}

/** Whether a body failed for running past its declared length (nothing to resume: the server lied). */
export const ranLong = (error: unknown): boolean =>
  error instanceof ResponseLengthError && error.received > error.declared;

/**
 * The body length a delivered response declared (`content-length`), `-1` when it declared none or
 * has no body (a HEAD, 204 or 304 answer declares the length of a body it does not have).
 */
export const declaredBodyBytes = (method: string, status: number, headers: HeaderRecord): number => {
  const length = headers['content-length'];
  if (typeof length !== 'string' || status === 204 || status === 304 || method === 'HEAD') return -1;
  const declared = Number(length);
  return Number.isSafeInteger(declared) && declared >= 0 ? declared : -1;
};

const RANGE_END = /^\s*bytes \d+-(\d+)\//;

/** Where the whole body ends by a `206`'s `Content-Range` (its last byte + 1); `-1` when unreadable. */
export const rangeEnd = (headers: HeaderRecord): number => {
  const range = headers['content-range'];
  const end = typeof range === 'string' ? RANGE_END.exec(range) : null;
  return end ? Number(end[1]) + 1 : -1;
};
