/**
 * One ky call's state, found again by the hooks of the call: ky gives each call its own `context`
 * object and passes it to every hook of the call, and the `Request` a hook sees is the one ky hands
 * to fetch next. Both carry the call's state, invisibly.
 */
import { type BodyKind, privateSlot, type RetryRun } from '@jitterbug/core/adapter';

/** The body's kind as ky's options hold it, and the run once the first attempt began. */
export interface CallState {
  readonly body: BodyKind | undefined;
  run: RetryRun | undefined;
}

export const byContext = privateSlot<CallState>();
export const byRequest = privateSlot<CallState>();
