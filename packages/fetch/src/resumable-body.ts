/**
 * Resuming a download whose body breaks after the response was handed over (the opt-in `resume`):
 * the caller gets a new `Response` (same status, status text and headers) whose body reads the
 * original one and, when it breaks, asks for the rest with `Range`/`If-Range` and goes on with the
 * answer's bytes — only when the run decides to, and only an answer `checkResumed` accepts. Anything
 * else ends the body with an error; bytes of another representation are never spliced on.
 */
import {
  checkResumed,
  type Decision,
  type HeaderGetter,
  resumeHeaders,
  resumeValidator,
} from '@jitterbug/core';
import { type RetryRun, resumeDecision } from '@jitterbug/core/adapter';
import { attemptSignal } from './attempt-signal.ts';
import { awaitTurn } from './await-turn.ts';
import type { Call, FetchFunction } from './call.ts';
import { discardBody } from './discard.ts';
import { networkCode } from './network-code.ts';
import { tagged } from './tagged.ts';

/** What a resume needs of the call it continues. */
export interface ResumeContext {
  readonly send: FetchFunction;
  readonly call: Call;
  readonly run: RetryRun;
}

const settled = async (pending: Decision | Promise<Decision>): Promise<Decision> => pending;

/** The pull source of the caller's body: the original body, then each accepted rest in turn. */
class ResumingSource implements UnderlyingDefaultSource<Uint8Array> {
  declare private readonly context: ResumeContext;
  declare private readonly validator: string;
  /** The `Response` the caller holds, to re-attach the summary to after each resume. */
  declare target: Response | undefined;
  declare private reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Bytes handed to the caller so far: where the rest starts. */
  declare private bytes: number;
  /** Made at the first break: the caller's cancel of the body ends a resume in progress. */
  declare private cancelled: AbortController | undefined;

  constructor(body: ReadableStream<Uint8Array>, validator: string, context: ResumeContext) {
    this.context = context;
    this.validator = validator;
    this.target = undefined;
    this.reader = body.getReader();
    this.bytes = 0;
    this.cancelled = undefined;
  }

  async pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await this.reader.read();
      } catch (error) {
        // Rejecting errors the caller's body with what `rest` throws.
        this.reader = await this.rest(error);
        continue;
      }
      // Cancelled by the caller while this read was pending: the stream is closed already.
      if (this.cancelled?.signal.aborted) return;
      if (read.done) {
        controller.close();
        return;
      }
      this.bytes += read.value.byteLength;
      controller.enqueue(read.value);
      return;
    }
  }

  cancel(reason: unknown): Promise<void> {
    this.cancelled ??= new AbortController();
    this.cancelled.abort(reason);
    return this.reader.cancel(reason).catch(() => undefined);
  }

  /**
   * The reader of the rest of the body after it broke with `error`, or throws what the body ends
   * with: `error` itself (the caller's abort, or the run will not resume), the caller's abort reason
   * during a resume, the error of the last resuming request, or the `ResumeError` of an answer that
   * does not continue the body.
   */
  private async rest(error: unknown): Promise<ReadableStreamDefaultReader<Uint8Array>> {
    const { call, run } = this.context;
    const callerSignal = call.signal ?? undefined;
    // The caller aborted or cancelled: the body ends as it would without jitterbug.
    if (callerSignal?.aborted || this.cancelled?.signal.aborted) throw error;
    const code = networkCode(error, call);
    let decision = await settled(code ? resumeDecision(run, error, code) : resumeDecision(run, error));
    if (!decision.retry) throw tagged(error, run);
    this.cancelled ??= new AbortController();
    const stop = callerSignal
      ? AbortSignal.any([callerSignal, this.cancelled.signal])
      : this.cancelled.signal;
    for (;;) {
      try {
        await run.wait(decision.delayMs, stop);
      } catch (reason) {
        throw tagged(reason, run);
      }
      const turn = awaitTurn(run, stop);
      if (turn) await turn;
      const answer = await this.askForRest(stop);
      if (!(answer instanceof Response)) {
        const failure = answer.error;
        const aborted = stop.aborted;
        const failureCode = aborted ? undefined : networkCode(failure, call);
        decision = await settled(
          run.next(failureCode ? { error: failure, code: failureCode } : { error: failure, aborted }),
        );
        if (!decision.retry) throw tagged(failure, run);
        continue;
      }
      const headers: HeaderGetter = (name) => answer.headers.get(name);
      const status = answer.status;
      const refused = checkResumed(status, headers, this.bytes, this.validator);
      try {
        // A 2xx that does not continue the body is a failed attempt at it (the run's summary says
        // so); a status the run may retry (a 503) is reported as the status it is.
        decision = await settled(
          refused && status < 400
            ? run.next({ error: refused })
            : (run.settle(status) ?? run.next({ status, headers, response: answer })),
        );
      } catch (hookError) {
        void discardBody(answer, 0);
        throw hookError;
      }
      if (decision.retry || refused) await discardBody(answer, run.options.discardBodyMaxBytes);
      if (decision.retry) continue;
      if (refused) throw tagged(refused, run);
      if (this.target) tagged(this.target, run);
      return (answer.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() })).getReader();
    }
  }

  /** Sends the request again for the bytes from `this.bytes` on, if still the same representation. */
  private async askForRest(signal: AbortSignal): Promise<Response | { error: unknown }> {
    const { send, call, run } = this.context;
    // Each resuming request has the timeout of any attempt, until its headers.
    const timer = attemptSignal(run.options.attemptTimeoutMs, signal);
    const [input, init] = call.attempt(
      timer?.signal ?? signal,
      true,
      resumeHeaders(this.bytes, this.validator),
    );
    try {
      return await send(input, init);
    } catch (error) {
      return { error };
    } finally {
      timer?.stop();
    }
  }
}

/**
 * What the caller gets for `response`, the run's final answer: `response` itself when its body could
 * not be resumed (see `resumeValidator`), else a new `Response` with the same status, status text
 * and headers and a body that resumes (without `url`, `redirected` or `type`: fetch sets those only
 * on responses it makes). Carries the run's summary either way.
 */
export const resumable = (response: Response, context: ResumeContext): Response => {
  const { run } = context;
  const body = response.body;
  const validator =
    body && resumeValidator(run.method, response.status, (name) => response.headers.get(name));
  if (!validator) return response;
  const source = new ResumingSource(body, validator, context);
  // No read-ahead: the body is read when the caller reads, as the original would be.
  const resuming = new Response(new ReadableStream(source, { highWaterMark: 0 }), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  source.target = resuming;
  return tagged(resuming, run);
};
