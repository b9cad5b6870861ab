/**
 * The promise driver of the attempt sequence, for every client that can await: the fetch engine
 * (`withRetry`, ky), axios, and the requests for the rest of a broken body. It does what the
 * sequence says (`steps.ts`) and tells it what happened, top to bottom as p-retry's loop reads; the
 * client is a {@link Transport}, which only sends and translates. Every decision, and the order of
 * the steps, is the sequence's.
 */
import { untilOnline } from '#offline';
import type { EditableRequest } from '../attempt-edits.ts';
import type { RunFeature } from '../features/feature.ts';
import type { Sleep } from '../sleep.ts';
import type { AttemptResult, DrivenSequence, Step } from '../steps.ts';

/**
 * A client as the driver sends it, for one request. `A` is one attempt's answer as the client gave it
 * (a response, or a failure it never rejects with), `R` what the caller gets.
 */
export interface Transport<A, R> extends EditableRequest {
  /** The caller's signal, for waits and holds (made on first use where the client has none). */
  signal(): AbortSignal | undefined;
  /** The caller's cancellation, once they cancelled (the reason the request then rejects with). */
  cancellation(): unknown;
  /** Work before the first attempt (a stream body read ahead); its rejection fails the request. */
  prepare?(): Promise<void> | undefined;
  /**
   * Sends one attempt, or one hedged copy of it (`cancel`: the race ends it when another copy wins).
   * Never rejects: a failure comes back as an answer.
   */
  send(cancel?: AbortSignal): Promise<A>;
  /** The answer's status, when it has one (`undefined`: it failed). */
  status(answer: A): number | undefined;
  /** The answer in the core's terms (asked when its status alone does not settle the run). */
  result(answer: A): AttemptResult | Promise<AttemptResult>;
  /**
   * What the caller gets for the final answer, carrying the run's summary; throws (or rejects with)
   * a failure's error, which the driver then tags.
   */
  deliver(answer: A): R | Promise<R>;
  /** Drops an answer: at most `maxBytes` of its body drained, the rest cancelled or its connection closed. */
  discard(answer: A, maxBytes: number): void | Promise<void>;
  /** Attaches the finished run's summary to the error the caller gets. */
  tag(error: unknown): void;
  /** Whether this attempt must be sent once, hedging or not (axios' stream mode). */
  sendOnce?(): boolean;
  /** Its attempts ask for the rest of a body that broke (for `beforeRetry`'s `kind`). */
  readonly resuming?: boolean;
  /** Releases what the transport made for the request (listeners on the caller's cancellation). */
  close?(): void;
}

/** The sequence as the promise driver runs it: its events and steps, the racer and the sleep. */
export interface PromiseDriven extends DrivenSequence {
  readonly options: DrivenSequence['options'] & {
    readonly racer: RunFeature | undefined;
    readonly sleep: Sleep;
  };
}

/**
 * Sends the request until the sequence delivers or fails it, and resolves with what the caller gets,
 * or rejects with its error, each carrying the run's summary. `waitFirstMs`: a retry was decided
 * already (a broken body to resume), so the sequence begins with its wait.
 */
export const runAttempts = async <A, R>(
  run: PromiseDriven,
  t: Transport<A, R>,
  waitFirstMs?: number,
): Promise<R> => {
  let answer: A | undefined;
  let preparing: Promise<void> | undefined;
  let step: Step;
  try {
    try {
      preparing = t.prepare?.();
      step = run.start(t, preparing !== undefined, waitFirstMs);
    } catch (error) {
      step = run.failed(error);
    }
    for (;;) {
      if (step === 'fail') {
        t.tag(run.error);
        throw run.error;
      }
      // What the step asked for fails into `failed`: the sequence knows which rule applies.
      try {
        switch (step) {
          case 'send':
            // One attempt, awaited inline (an async function less on every request), and handed
            // over at once when it settles the run.
            answer = await t.send();
            step = run.answered(1, t.status(answer));
            if (step === 'deliver') {
              const delivered = t.deliver(answer);
              return delivered instanceof Promise ? await delivered : delivered;
            }
            break;
          case 'race': {
            // Copies are the racing feature's to send (hedging wraps the send): a program that
            // never hedges carries none of that.
            const raced = await run.options.racer!.sendCopies!(run, t);
            if (raced.thrown) throw raced.thrown.error;
            answer = raced.answer;
            step = raced.step;
            break;
          }
          case 'result': {
            const result = t.result(answer!);
            step = run.done(result instanceof Promise ? await result : result);
            break;
          }
          case 'deliver': {
            const delivered = t.deliver(answer!);
            return delivered instanceof Promise ? await delivered : delivered;
          }
          case 'await':
            step = run.done(await run.pending);
            break;
          case 'hold':
          case 'wait': {
            const signal = t.signal();
            const { sleep } = run.options;
            // A failure while the browser is offline waits for its `online` event too.
            await (run.untilOnline ? untilOnline(sleep, run.delayMs, signal) : sleep(run.delayMs, signal));
            // An injected sleep may ignore the signal: the abort still ends the wait.
            if (signal?.aborted) throw signal.reason;
            step = run.done();
            break;
          }
          case 'discard': {
            const discarded = t.discard(answer!, run.maxBytes);
            if (discarded) await discarded;
            step = run.done();
            break;
          }
          case 'drop':
            void t.discard(answer!, run.maxBytes);
            step = run.proceed();
            break;
          case 'prepare':
            await preparing;
            step = run.done();
            break;
          default:
            throw new Error(`jitterbug: the attempt sequence asked for '${step}' outside a race`);
        }
      } catch (error) {
        step = run.failed(error);
      }
    }
  } finally {
    t.close?.();
  }
};
