/**
 * The fetch transport: how the core's attempt loop sends a fetch call, for every client that speaks
 * `fetch` (`withRetry`, and ky through its `fetch` option). It only sends, translates and drops;
 * every decision is the run's.
 */

import type { NextAttempt } from '@jitterbug/core';
import {
  type AttemptResult,
  asLayer,
  attemptTimer,
  fail,
  isRetryLayer,
  LAYER,
  marking,
  mayRetry,
  maySendAgain,
  type RetryRun,
  runAttempts,
  setRetryInfo,
  type Transport,
} from '@jitterbug/core/adapter';
import { failuresProveUnsent, lostKeptConnection } from '#platform';
import { type FetchFunction, RequestParts } from './call.ts';
import { discardBody } from './discard.ts';
import { networkCode } from './network-code.ts';
import { readProblemType } from './problem-body.ts';

/** An attempt that failed without a response, with the code the core should read when it has none. */
class Failed {
  declare readonly error: unknown;
  declare readonly code: string | undefined;
  constructor(error: unknown, code: string | undefined) {
    this.error = error;
    this.code = code;
  }
}

/** An attempt's answer: the response, or how it failed. */
export type Answer = Response | Failed;

/**
 * One fetch call as the attempt loop sends it: its request's parts, and the fetch and run that
 * {@link execute} gives it. One object per call, which is its own transport. A client that differs
 * from plain fetch extends it (ky: the error its caller gets) or sets its `beforeRetry`.
 */
export class Call extends RequestParts implements Transport<Answer, Response> {
  /** The fetch each attempt calls. */
  declare fetch: FetchFunction;
  /** The call's run, which decides every retry. */
  declare run: RetryRun;
  /**
   * The client's own hooks for a retry (ky's `beforeRetry`), after the policy's `beforeRetry`: what
   * they change of the call is what the next attempts send. Set by the client, when it has some.
   */
  declare beforeRetry?: ((next: NextAttempt) => unknown) | undefined;
  /**
   * The last response `send` checked, and its status: read once per answer (a `Response`'s `status`
   * is a getter that checks its receiver's brand on every read).
   */
  declare private checked: Response | undefined;
  declare private checkedStatus: number;

  signal(): AbortSignal | undefined {
    return this.callerSignal;
  }

  cancellation(): unknown {
    const signal = this.callerSignal;
    return signal?.aborted ? signal.reason : undefined;
  }

  /**
   * Before the first attempt of a request that may be sent more than once here (a retry the policy
   * may make, or a transparent retry where a failure can prove that nothing was sent): reads a
   * `Request` input's in-memory body into bytes, or, with `bodyBuffering`, a stream body into memory
   * when it fits (past the limit the part read and the unread rest are sent once, in order). Without
   * it a stream body is sent once: the run stops where it would retry (`body-not-replayable`).
   * A request sent once is sent as it is, with no copy (in a browser, a `Request`'s body as bytes).
   */
  prepare(): Promise<void> | undefined {
    const { run } = this;
    const { options } = run;
    // No body: nothing to read ahead, and no key to read for a GET, or with no headers (the
    // method's lookup skipped then): nearly every request ends here.
    if (this.body === 'none' && (!this.headerSource || options.methods.has(run.method))) return undefined;
    // Asked first: a header fetch would refuse (read here for a POST's key) fails the request
    // before any attempt.
    const again = (failuresProveUnsent ? maySendAgain : mayRetry)(options, run.method, this.headers);
    if (this.body === 'none') return undefined;
    // In a browser, a `Request`'s body is read even for one attempt: Chromium leaves pending the
    // upload of a `Request` whose body was cloned by anyone (ky clones each request while its own
    // retry limit is above 0, as with `forcedRetries`), never an upload of bytes.
    const reading = again || !failuresProveUnsent ? this.readRequestBody() : undefined;
    if (reading) return reading;
    // The init's stream body, else the `Request`'s (none in Firefox, which has no `Request.body`).
    const stream = this.body === 'stream' ? (this.init?.body ?? (this.input as Request).body) : undefined;
    const buffering = options.feature.bodyBuffering;
    if (!again || !stream || !buffering) return undefined;
    return buffering.readWeb(stream as AsyncIterable<unknown>, this.callerSignal).then((read) => {
      if (read instanceof Uint8Array) {
        this.useBytes(read);
        run.body = 'replayable';
      } else {
        // Read only in part: the one attempt sends what was read, then the rest (the body was a
        // stream, sent as it is: only its init changes).
        this.init = { ...this.init, body: read, duplex: 'half' } as RequestInit;
      }
    });
  }

  /**
   * Sends one attempt with its own signal (the caller's, joined with the attempt's timer and, for a
   * hedged copy, with the race's cancel); never rejects.
   */
  async send(cancel?: AbortSignal, extra?: Readonly<Record<string, string>>): Promise<Answer> {
    const callerSignal = this.callerSignal;
    const timeoutMs = this.run.options.attemptTimeoutMs;
    const timer = timeoutMs === undefined ? undefined : attemptTimer(timeoutMs, callerSignal);
    let signal = timer?.signal;
    if (cancel) {
      const own = signal ?? callerSignal;
      signal = own ? AbortSignal.any([own, cancel]) : cancel;
    }
    const [input, init] = this.attempt(signal, extra);
    // Called as a plain function: a browser's fetch throws "Illegal invocation" on another `this`.
    const send = this.fetch;
    try {
      // Through another jitterbug layer, this one alone retries (see the core's layer.ts).
      const answer = await (isRetryLayer(send)
        ? send(input, { ...init, [LAYER]: true } as RequestInit)
        : marking()
          ? asLayer(() => send(input, init))
          : send(input, init));
      // A function that is not a fetch (undici's request(), got) answers without a status to read.
      const status: unknown = answer?.status;
      if (typeof status !== 'number') return fail('fetch', 'a fetch function', answer, 'fetchAnswer');
      this.checked = answer;
      this.checkedStatus = status;
      return answer;
    } catch (error) {
      return new Failed(error, networkCode(error));
    } finally {
      timer?.stop();
    }
  }

  requestUrl(): string {
    return this.url;
  }

  status(answer: Answer): number | undefined {
    if (answer === this.checked) return this.checkedStatus;
    return answer instanceof Failed ? undefined : answer.status;
  }

  result(answer: Answer): AttemptResult | Promise<AttemptResult> {
    if (answer instanceof Failed) {
      const { error } = answer;
      const aborted = this.callerSignal?.aborted === true;
      const code = aborted ? undefined : answer.code;
      if (code) return { error, code };
      // Node's fetch (undici): a connection kept from an earlier request, lost before the answer.
      return !aborted && lostKeptConnection(error) ? { error, staleConnection: true } : { error, aborted };
    }
    const result = {
      status: answer.status,
      headers: (name: string) => answer.headers.get(name),
      response: answer,
    };
    // A problem body's type is part of the answer (read from a clone: the caller may still get it).
    const reading = readProblemType(answer, this.run.options.discardBodyMaxBytes);
    return reading
      ? reading.then((type) => (type === undefined ? result : { ...result, problemType: type }))
      : result;
  }

  deliver(answer: Answer): Response {
    // The answer `send` checked is a response: nearly every delivery is told so without walking its
    // prototype chain (`instanceof`).
    if (answer !== this.checked && answer instanceof Failed) throw answer.error;
    // Opt-in: a body that may break gets a stream of its own, which asks for the rest if it does.
    const resume = this.run.options.feature.resume;
    if (!resume) {
      setRetryInfo(answer, this.run.summary!);
      return answer;
    }
    return resume.response(answer, this.run, {
      signal: this.callerSignal,
      send: (headers, signal) => this.send(signal, headers),
      discard: discardBody,
      codeOf: networkCode,
      requestHeaders: () => this.requestHeaders(),
      requestUrl: () => this.url,
      edit: (url, headers) => this.edit(url, headers),
    });
  }

  discard(answer: Answer, maxBytes: number): Promise<void> | undefined {
    return answer instanceof Failed ? undefined : discardBody(answer, maxBytes);
  }

  tag(error: unknown): void {
    if (this.run.summary) setRetryInfo(error, this.run.summary);
  }
}

/**
 * Sends `call` until the run stops, and resolves with the final response or rejects with the final
 * error, each carrying the run's summary (`getRetryInfo`). A retried response is discarded (its
 * body drained within `discardBodyMaxBytes`, then cancelled); the waits are the run's, ended at once
 * by the caller's signal.
 */
export const execute = (fetch: FetchFunction, call: Call, run: RetryRun): Promise<Response> => {
  call.fetch = fetch;
  call.run = run;
  return runAttempts(run, call);
};
