/**
 * How the attempt sequence begins an attempt: the caller (cancelled?), the features' turn (a hold,
 * a refusal), what the attempt carries (the attempt headers, a generated key, `beforeRetry`), then
 * the send, once or as the copies a feature races.
 */
import { channels, observed } from '#diagnostics';
import { isThenable } from './maybe-promise.ts';
import type { ResolvedOptions, StopReason } from './options.ts';
import { decideResult, stop } from './sequence-decide.ts';
import { ask, end, fail, hookFailed } from './sequence-end.ts';
import { EDIT, EDIT_HOOK, FAIL, HOLD, PREPARE_FAILED, QUIET, SEND, WAIT } from './sequence-stages.ts';
import { type SequenceState, spare } from './sequence-state.ts';
import type { Step } from './steps.ts';
import type { AttemptKind, EditableRequest, RequestEditing, Turn } from './types.ts';

/** After the work before the first attempt: the wait it begins with, if any, or the attempt. */
export const prepared = (s: SequenceState): Step => (s.delayMs < 0 ? attempt(s) : ask(s, WAIT, 'wait'));

/**
 * The work before the first attempt failed, and nothing was sent: the run ends as aborted when the
 * caller cancelled, else as the failure decides; the request fails with it either way.
 */
export const prepareFailed = (s: SequenceState, error: unknown): Step => {
  s.error = error;
  if (s.port?.cancellation?.() !== undefined) {
    s.afterEnd = FAIL;
    return end(s, 'aborted', undefined, error, false, QUIET);
  }
  s.afterEnd = PREPARE_FAILED;
  return decideResult(s, { error });
};

/**
 * The next attempt: the caller, the features' turn, what the attempt carries, then the send. Its
 * rare turns are functions of their own, so that this one stays small enough for V8 to inline into
 * the driver's step: nearly every request's first attempt goes straight to the send.
 */
export const attempt = (s: SequenceState): Step => {
  // An attempt the caller gave up on before it was sent is not counted.
  const cancelled = s.port?.cancellation?.();
  if (cancelled !== undefined) return cancelledBefore(s, cancelled);
  // A feature may hold the attempt (and is asked again after the hold), or refuse it.
  const admitting = admitters(s);
  const turn = admitting.length === 0 ? undefined : admissionBy(s, admitting);
  if (turn) return 'holdMs' in turn ? held(s, turn.holdMs) : refused(s, turn);
  if (observed && channels.attemptStart.hasSubscribers) {
    channels.attemptStart.publish({ run: s, attempt: s.attempts + 1 });
  }
  // Nearly every first attempt carries nothing (no generated key, no attempt headers), and no attempt
  // does without a feature that edits (no edits then, nothing to apply).
  if (s.attempts === 0 && s.idempotencyKey === undefined && s.options.feature.attemptHeaders === undefined) {
    return send(s);
  }
  const edits = editsOf(s);
  return edits === undefined ? send(s) : carried(s, edits);
};

/** The caller cancelled before the attempt was sent: the run ends as aborted, and the request fails. */
const cancelledBefore = (s: SequenceState, cancelled: unknown): Step => {
  s.error = cancelled;
  s.afterEnd = FAIL;
  return end(s, 'aborted', undefined, cancelled, false, QUIET);
};

/** A feature holds the attempt for `holdMs`; it is asked again after. */
const held = (s: SequenceState, holdMs: number): Step => {
  s.delayMs = holdMs;
  return ask(s, HOLD, 'hold');
};

/** What the attempt carries (`beforeRetry`, a generated key, the attempt headers), then the send. */
const carried = (s: SequenceState, edits: RequestEditing): Step => {
  const port = s.port;
  const kind: AttemptKind = port?.resuming ? 'resume' : s.attempts > 0 ? 'retry' : 'first';
  const hooked = edits.hooked(s.options, port, kind);
  const status = s.lastOutcome?.status;
  let editing: unknown;
  try {
    editing = edit(s, kind);
  } catch (error) {
    return hooked ? hookFailed(s, error, status) : fail(s, error);
  }
  if (!isThenable(editing)) return send(s);
  s.pending = editing;
  spare(s).hookStatus = status;
  return ask(s, hooked ? EDIT_HOOK : EDIT, 'await');
};

/** Nothing was sent: the run ends (after `onGiveUp`), and the request fails with the feature's error. */
export const refused = (s: SequenceState, turn: Extract<Turn, { readonly refuse: StopReason }>): Step => {
  s.error = turn.error;
  s.afterEnd = FAIL;
  return stop(s, turn.refuse, true, undefined, turn.error, false, turn.refusedDelayMs);
};

/** What the features say about the attempt about to be sent, outermost first: `undefined` lets it go. */
export const admission = (s: SequenceState): Turn | undefined => admissionBy(s, admitters(s));

/** The features asked about the attempt about to be sent: of a first one, not those that hold retries only. */
const admitters = (s: SequenceState): ResolvedOptions['admitting'] =>
  s.attempts === 0 ? s.options.admittingFirst : s.options.admitting;

const admissionBy = (s: SequenceState, admitting: ResolvedOptions['admitting']): Turn | undefined => {
  for (let i = 0; i < admitting.length; i++) {
    const turn = admitting[i]!.admit!(s);
    if (turn) return turn;
  }
  return undefined;
};

/**
 * What applies the edits of `s`'s attempts: the options' (a feature's factory brought it), else the
 * client's own for its hooks (ky's), else none.
 */
export const editsOf = (s: SequenceState): RequestEditing | undefined => s.options.edits ?? s.port?.edits;

/**
 * Applies what the attempt about to be sent carries to the driver's request (`attempt-edits.ts`):
 * `undefined`, or a promise while that is prepared. Throws what a hook throws.
 */
export const edit = (s: SequenceState, kind: AttemptKind): unknown =>
  editsOf(s)?.apply(s, s.port as EditableRequest, kind);

/** Sends the attempt: once, or as the copies a feature races (hedging wraps the send so). */
export const send = (s: SequenceState): Step => {
  s.stage = SEND;
  // A race of the last attempt is over (most requests never race).
  if (s.aside?.race !== undefined) s.aside.race = undefined;
  const racer = s.options.racer;
  if (racer === undefined || s.port?.sendOnce?.()) return 'send';
  // Hedging wraps the send: the attempt's copies are its feature's steps until one wins.
  const race = racer.wrapSend!(s);
  spare(s).race = race;
  return race.start();
};
