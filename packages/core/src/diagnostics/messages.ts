/**
 * What jitterbug publishes on `node:diagnostics_channel` (the channels undici and Node's http use),
 * for tracing and metrics without glue: see `CHANNELS` for the names. Every message carries `run`,
 * the same object for every message of one request (use it as a `WeakMap` key, nothing else).
 */
import type { GiveUpEvent, RetryEvent, RetryInfo } from '../events.ts';

/** Identifies one request's run across its messages. */
export type RunIdentity = object;

/** `jitterbug:run:start`: a request began (before its first attempt). */
export interface RunStartMessage {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
  /** The request's method, in upper case. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** The matched route rule's name, if any. */
  readonly route: string | undefined;
}

/**
 * `jitterbug:attempt:start`: an attempt is about to be sent. Published synchronously, immediately
 * before the adapter hands the attempt to its client (undici's `dispatch`, `fetch`, axios' adapter),
 * so that a subscriber to the client's own channels can tell which attempt a request is.
 */
export interface AttemptStartMessage {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
  /** 1-based number of this attempt (the first is 1; a resend is 2 or more). */
  readonly attempt: number;
  /** For a hedged copy of the attempt, its number (2 or more); absent for the attempt itself. */
  readonly copy?: number;
}

/** `jitterbug:attempt:end`: an attempt ended with a response or an error. */
export interface AttemptEndMessage {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
  /** 1-based number of the attempt that ended. */
  readonly attempt: number;
  /** The status it got (`undefined` when it failed without a response). */
  readonly status: number | undefined;
  /** The error it failed with (`undefined` when it got a response). */
  readonly error: unknown;
  /** The error's code as the decision read it (`ECONNRESET`, `ERR_NETWORK`, …). */
  readonly errorCode: string | undefined;
}

/** `jitterbug:retry`: a retry was decided; the wait (`delayMs`) begins. The `onRetry` event, and `run`. */
export interface RetryMessage extends RetryEvent {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
}

/** `jitterbug:give-up`: a failure that is normally retried was not. The `onGiveUp` event, and `run`. */
export interface GiveUpMessage extends GiveUpEvent {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
}

/** `jitterbug:run:end`: the request finished. Its summary (what `getRetryInfo` returns), and `run`. */
export interface RunEndMessage {
  /** The request: the same object in each of its messages (a `WeakMap` key). */
  readonly run: RunIdentity;
  /** Its summary. */
  readonly info: RetryInfo;
}

/** The channel names. */
export const CHANNELS = Object.freeze({
  runStart: 'jitterbug:run:start',
  attemptStart: 'jitterbug:attempt:start',
  attemptEnd: 'jitterbug:attempt:end',
  retry: 'jitterbug:retry',
  giveUp: 'jitterbug:give-up',
  runEnd: 'jitterbug:run:end',
} as const);

/** A channel as the core uses it (the shape of `node:diagnostics_channel`'s `Channel`). */
export interface Channel<T> {
  readonly hasSubscribers: boolean;
  publish(message: T): void;
}

/** Every channel, by its key in {@link CHANNELS}. */
export interface Channels {
  readonly runStart: Channel<RunStartMessage>;
  readonly attemptStart: Channel<AttemptStartMessage>;
  readonly attemptEnd: Channel<AttemptEndMessage>;
  readonly retry: Channel<RetryMessage>;
  readonly giveUp: Channel<GiveUpMessage>;
  readonly runEnd: Channel<RunEndMessage>;
}
