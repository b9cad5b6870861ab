/**
 * Where the attempt sequence is (`sequence.ts`): the step it gave, so that the step's outcome goes
 * on from there; and what follows the run's end.
 */

export const IDLE = 0;
export const PREPARE = 1;
export const HOLD = 2;
export const WAIT = 3;
/** The driver's edit of its request (the attempt headers, a generated key), no hook of the caller's in it. */
export const EDIT = 4;
/** `beforeRetry`, and the edit after it. */
export const EDIT_HOOK = 5;
/** The attempt is out: one, or the copies of a race (whose steps are then its feature's). */
export const SEND = 6;
export const RESULT = 7;
export const VERDICT = 9;
export const ON_RETRY = 10;
export const DISCARD = 11;
export const GIVE_UP = 12;
/** `onFinish`, whose rejection fails the request. */
export const FINISH = 13;
/** `onFinish`, whose rejection is dropped (the request fails with its own error). */
export const QUIET = 14;
/** The answer is dropped before the request fails. */
export const FAILING = 15;
export const DELIVERED = 16;
export const OVER = 17;
/** `onFinish` is not waited for. */
export const DROPPED = 18;

/** How a run's end takes `onFinish`'s promise: awaited (its rejection fails the request), quietly, or not at all. */
export type FinishMode = typeof FINISH | typeof QUIET | typeof DROPPED;

// What follows the run's end: the answer handed over, the request's failure, or (for the decision
// methods, which return it) the decision.
export const DELIVER = 0;
export const FAIL = 1;
export const DECISION = 2;
/** A failure before the first attempt (a body read ahead): the request fails with it whatever was decided. */
export const PREPARE_FAILED = 3;
