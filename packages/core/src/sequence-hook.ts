/** How the attempt sequence calls a hook of the caller's: what it returns, at once or as a promise handed over. */
import { isThenable } from './maybe-promise.ts';
import { hookFailed } from './sequence-end.ts';
import { type SequenceState, spare } from './sequence-state.ts';
import type { Step } from './steps.ts';

/**
 * Calls a hook of the caller's with `arg`: what it returns goes on at `stage` (as `done` with it),
 * at once, or once its promise settles (`await`). A throw is the hook's failure.
 */
export const callHook = <A>(
  s: SequenceState,
  stage: number,
  status: number | undefined,
  call: (arg: A) => unknown,
  arg: A,
): Step => {
  let told: unknown;
  try {
    told = call(arg);
  } catch (error) {
    return hookFailed(s, error, status);
  }
  s.stage = stage;
  if (!isThenable(told)) return s.done(told);
  spare(s).hookStatus = status;
  s.pending = told;
  return 'await';
};
