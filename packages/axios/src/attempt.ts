/**
 * One attempt, translated: what to tell the core, and how to hand it over or drop it. The attempts
 * of the default success path (the adapter read the body itself) are here; those of stream mode
 * (opt-in, `discardedBodyCap`) are in `stream-mode.ts`.
 */
import type { AttemptResult } from '@jitterbug/core/adapter';
import type { AxiosResponse } from 'axios';
import { destroyBody } from '#platform';
import { statusResult } from './outcome.ts';

/** One attempt as the loop handles it. */
export interface Attempt {
  /** The status it got, whatever `validateStatus` thinks of it; `undefined` for a failure. */
  readonly status: number | undefined;
  /**
   * The attempt in the core's terms, built only when its status alone does not settle the run (a
   * stream-mode body is converted first, so that `shouldRetry` sees `data`: then a promise).
   */
  result(): AttemptResult | Promise<AttemptResult>;
  /** The caller's outcome: the response, or throws (or rejects with) what axios would. */
  finish(): AxiosResponse | Promise<AxiosResponse>;
  /** Drops the attempt before a retry: its body drained within the cap or its connection closed. */
  discard(): void;
}

// The attempt of the success path is a class: a literal with closures cost more there.

/** A response the adapter read itself (not in stream mode), handed over as it is. */
export class AdapterResponse implements Attempt {
  declare readonly status: number;
  declare private readonly response: AxiosResponse;
  /** The most bytes of a problem body read for its type (`discardBodyMaxBytes`). */
  declare private readonly maxBytes: number;

  constructor(response: AxiosResponse, maxBytes: number) {
    this.status = response.status;
    this.response = response;
    this.maxBytes = maxBytes;
  }
  result(): AttemptResult {
    return statusResult(this.response, this.maxBytes);
  }
  finish(): AxiosResponse {
    return this.response;
  }
  // Only a caller's `responseType: 'stream'` leaves a body unread: its connection is closed.
  discard(): void {
    destroyBody(this.response);
  }
}

/**
 * An attempt that failed, or a status `validateStatus` refused (`response`, whose status `result`
 * reports: its body is dropped on a retry, if the caller asked for a stream). `error` is what the
 * caller would get.
 */
export const failed = (result: AttemptResult, error: unknown, response?: AxiosResponse): Attempt => ({
  status: response?.status,
  result: () => result,
  finish: () => Promise.reject(error),
  discard: () => {
    if (response) destroyBody(response);
  },
});
