/**
 * Request edits, from `createRequestEdits()`: what `beforeRetry` (the policy's, a route's, a call's)
 * sets on the attempt about to be sent — its headers, its URL — goes out with it and with every
 * attempt after it. Without it, `beforeRetry` is refused with a `TypeError` naming this factory, so
 * that a program that never changes a retry's request carries none of the edits (`attempt-edits.ts`).
 * The features that set something on an attempt themselves (the attempt headers, generated keys, a
 * credential refresh) bring the edits with their own factories.
 */
import { requestEditing } from '../attempt-edits.ts';
import { noOptions } from '../option-error.ts';
import type { RequestEditing } from '../types.ts';
import { branded } from './feature.ts';

/** What `createRequestEdits()` returns: the edits a run applies. */
export interface RequestEdits {
  /** Applies what `beforeRetry` and the features set to the attempt about to be sent. */
  readonly edits: RequestEditing;
}

/**
 * Creates the request edits for the `requestEdits` option: `beforeRetry(next)` may then change a
 * retry's (and a hedged copy's, a resume's) headers and URL.
 *
 * @throws TypeError naming the factory when it is given options (it takes none).
 */
export const createRequestEdits = (...none: never[]): RequestEdits => {
  noOptions('createRequestEdits', none);
  return branded({ edits: requestEditing }, 'requestEdits');
};

/** The `requestEdits` option, as the feature table's row puts it in the public options. */
export interface RequestEditsOption {
  /**
   * What `beforeRetry(next)` sets on `next.headers` and `next.url` goes out with that attempt and the
   * ones after it, from `createRequestEdits()`; `beforeRetry` needs it (a `TypeError` naming this
   * factory, without). Default `false`. A factory, so that a program that never changes a retry's
   * request does not carry the edits.
   */
  readonly requestEdits?: RequestEdits | false;
}
