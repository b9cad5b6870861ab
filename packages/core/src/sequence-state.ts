/**
 * The attempt sequence's state, as its steps (`sequence-*.ts`) read and write it: the run's counts,
 * where in the order of an attempt's steps it is, and what it keeps aside. `AttemptSequence` is it;
 * a step is a function of it, so that each kind of step has its file.
 */
import type { BackoffState } from './backoff.ts';
import type { AttemptOutcome, Decision } from './decide.ts';
import type { ResolvedOptions, RetryInfo, RetryReason } from './options.ts';
import type { RunRecord } from './run-record.ts';
import { type Aside, newAside } from './sequence-aside.ts';
import type { RacedSend, RaceHost, SequencePort, Step } from './steps.ts';

/** The sequence's state; its steps write it, a driver and the features read the parts they are given. */
export interface SequenceState extends RunRecord, RaceHost {
  /** The options in force, with the features (a feature's view of them, `RunView`'s, has none). */
  readonly options: ResolvedOptions;
  /** The idempotency key generated for this request, sent from its first attempt on. */
  readonly idempotencyKey: string | undefined;
  attempts: number;
  totalDelayMs: number;
  summary: RetryInfo | undefined;
  backoffState: BackoffState;
  retries: RetryReason[] | undefined;
  unread: number;
  transparentRetries: number;
  uncountedRetries: number;
  stalledRetries: number;
  answersSeen: number;
  lastOutcome: AttemptOutcome | undefined;
  /** Where in the order of one attempt's steps the sequence is (`sequence-stages.ts`). */
  stage: number;
  /** What the driver's client offers the sequence (cancellation, edits), given at `start`. */
  port: SequencePort | undefined;
  /** The decision being carried out, across the hooks' promises. */
  decision: Decision | undefined;
  /** What follows the run's end (`sequence-stages.ts`). */
  afterEnd: number;
  /** Whether the driver holds an answer, which it drops (unread) when the request fails instead. */
  holding: boolean;
  /** What only some paths need (a race won, a hook's promise out), made when one does. */
  aside: Aside | undefined;
  /** What the request fails with. */
  error: unknown;
  /** The wait asked for. */
  delayMs: number;
  /** The promise handed over. */
  pending: PromiseLike<unknown> | undefined;
  /** The step asked for is done (`value`: what it asked for). */
  done(value?: unknown): Step;
  /** A hook's or a step's failure, as a driver tells it. */
  failed(error: unknown): Step;
  /** Goes on after `won` or `drop`. */
  proceed(): Step;
}

/** What only some paths need, made on the first that does. */
export const spare = (s: SequenceState): Aside => {
  s.aside ??= newAside();
  return s.aside;
};

/** The race of the attempt's copies, while a feature races them. */
export const raceOf = (s: SequenceState): RacedSend | undefined => s.aside?.race;
