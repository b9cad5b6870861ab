/**
 * Resuming a download whose body breaks after the response was handed over, for clients whose
 * answers are WHATWG `Response`s (the fetch engine: `withRetry`, ky): the caller gets a new
 * `Response` (same status, status text and headers) whose body reads the original one and, when it
 * breaks, asks for the rest with `Range`/`If-Range` and goes on with the answer's bytes — only when
 * the run decides to, and only an answer `checkResumed` accepts. Anything else ends the body with an
 * error; bytes of another representation are never spliced on. The adapter sends (a
 * {@link ResumeSender}); this only composes streams. Reached through what `createResume` returns, so
 * that a program that never resumes does not carry it.
 */
import type { Decision } from '../decide.ts';
import { runAttempts, type Transport } from '../drive/promise.ts';
import { noOptions } from '../option-error.ts';
import type { HeaderGetter } from '../retry-after.ts';
import { setRetryInfo } from '../retry-info.ts';
import type { AttemptResult } from '../steps.ts';
import { branded } from './feature.ts';
import {
  checkResumed,
  type Resume,
  type ResumedRun,
  ResumeError,
  type ResumeSender,
  resumeHeaders,
  resumeValidator,
} from './resume.ts';
import { resumeDecision } from './resume-decision.ts';

/** What a resume needs of the call it continues. */
interface ResumeContext {
  readonly run: ResumedRun;
  readonly sender: ResumeSender;
}

/** `target`, carrying the run's summary when the run is finished. */
const tagged = <T>(target: T, run: ResumedRun): T => {
  if (run.summary) setRetryInfo(target, run.summary);
  return target;
};

const settled = async (pending: Decision | Promise<Decision>): Promise<Decision> => pending;

/** A declared length (`content-length`, a range's total): a safe integer >= 0, else `undefined`. */
const declaredLength = (value: string | null | undefined): number | undefined => {
  const length = value && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  return Number.isSafeInteger(length) ? length : undefined;
};

/** The pull source of the caller's body: the original body, then each accepted rest in turn. */
class ResumingSource implements UnderlyingDefaultSource<Uint8Array> {
  declare private readonly context: ResumeContext;
  declare private readonly validator: string;
  /** The `Response` the caller holds, to re-attach the summary to after each resume. */
  declare target: Response | undefined;
  declare private reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Bytes handed to the caller so far: where the rest starts. */
  declare private bytes: number;
  /** The whole body's length, as the first answer (or a rest's `Content-Range`) declared it. */
  declare private length: number | undefined;
  /** Made at the first break: the caller's cancel of the body ends a resume in progress. */
  declare private cancelled: AbortController | undefined;

  constructor(
    body: ReadableStream<Uint8Array>,
    validator: string,
    length: number | undefined,
    context: ResumeContext,
  ) {
    this.context = context;
    this.validator = validator;
    this.target = undefined;
    this.reader = body.getReader();
    this.bytes = 0;
    this.length = length;
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
      const { length } = this;
      if (read.done) {
        // A body that ends short of what its answer declared is never handed over as the whole.
        if (length !== undefined && this.bytes < length) {
          throw tagged(
            new ResumeError(`the body ended at byte ${this.bytes} of the ${length} declared`),
            this.context.run,
          );
        }
        controller.close();
        return;
      }
      // Nor one that runs past it: the bytes past the end are another text, never the caller's.
      if (length !== undefined && this.bytes + read.value.byteLength > length) {
        void this.reader.cancel().catch(() => undefined);
        throw tagged(new ResumeError(`the body ran past the ${length} bytes declared`), this.context.run);
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
    const { sender, run } = this.context;
    const callerSignal = sender.signal;
    // The caller aborted or cancelled: the body ends as it would without jitterbug.
    if (callerSignal?.aborted || this.cancelled?.signal.aborted) throw error;
    const code = sender.codeOf(error);
    const decision = await settled(code ? resumeDecision(run, error, code) : resumeDecision(run, error));
    if (!decision.retry) throw tagged(error, run);
    this.cancelled ??= new AbortController();
    const stop = callerSignal
      ? AbortSignal.any([callerSignal, this.cancelled.signal])
      : this.cancelled.signal;
    const rest = await runAttempts(
      run,
      new RestTransport(run, sender, stop, this.bytes, this.validator, this.length),
      decision.delayMs,
    );
    // A first answer that declared no length: the rest's range says it.
    this.length ??= declaredLength(rest.headers.get('content-range')?.split('/')[1]);
    if (this.target) tagged(this.target, run);
    return (rest.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() })).getReader();
  }
}

/** An answer to a request for the rest: the response and why it does not continue the body, if it does not. */
type RestAnswer =
  | { readonly response: Response; readonly refused: ResumeError | undefined }
  | { readonly error: unknown; readonly code?: string | undefined };

/** The requests for the rest of a body, as the attempt loop sends them. */
class RestTransport implements Transport<RestAnswer, Response> {
  declare private readonly run: ResumedRun;
  declare private readonly sender: ResumeSender;
  declare private readonly stop: AbortSignal;
  declare private readonly from: number;
  declare private readonly validator: string;
  declare private readonly length: number | undefined;
  declare readonly resuming: true;

  constructor(
    run: ResumedRun,
    sender: ResumeSender,
    stop: AbortSignal,
    from: number,
    validator: string,
    length: number | undefined,
  ) {
    this.resuming = true;
    this.length = length;
    this.run = run;
    this.sender = sender;
    this.stop = stop;
    this.from = from;
    this.validator = validator;
  }

  signal(): AbortSignal {
    return this.stop;
  }

  requestHeaders(): Headers {
    return this.sender.requestHeaders();
  }

  requestUrl(): string {
    return this.sender.requestUrl();
  }

  edit(url: string, headers: Headers): void | Promise<void> {
    return this.sender.edit(url, headers);
  }

  cancellation(): unknown {
    return this.stop.aborted ? this.stop.reason : undefined;
  }

  async send(cancel?: AbortSignal): Promise<RestAnswer> {
    const signal = cancel ? AbortSignal.any([this.stop, cancel]) : this.stop;
    const answer = await this.sender.send(resumeHeaders(this.from, this.validator), signal);
    if ('error' in answer) return answer;
    const headers: HeaderGetter = (name) => answer.headers.get(name);
    return {
      response: answer,
      refused: checkResumed(answer.status, headers, this.from, this.validator, this.length),
    };
  }

  // A 2xx that does not continue the body is a failed attempt at it (the run's summary says so); a
  // status the run may retry (a 503) is reported as the status it is.
  status(answer: RestAnswer): number | undefined {
    if ('error' in answer) return undefined;
    const { status } = answer.response;
    return answer.refused && status < 400 ? undefined : status;
  }

  result(answer: RestAnswer): AttemptResult {
    if ('error' in answer) {
      const { error, code } = answer;
      if (this.stop.aborted) return { error, aborted: true };
      return code ? { error, code } : { error };
    }
    const { response, refused } = answer;
    if (refused && response.status < 400) return { error: refused };
    return { status: response.status, headers: (name) => response.headers.get(name), response };
  }

  async deliver(answer: RestAnswer): Promise<Response> {
    if ('error' in answer) throw answer.error;
    if (answer.refused) {
      await this.sender.discard(answer.response, this.run.options.discardBodyMaxBytes);
      throw answer.refused;
    }
    return answer.response;
  }

  discard(answer: RestAnswer, maxBytes: number): Promise<void> | undefined {
    return 'error' in answer ? undefined : this.sender.discard(answer.response, maxBytes);
  }

  tag(error: unknown): void {
    tagged(error, this.run);
  }
}

/**
 * What the caller gets for `response`, the run's final answer: `response` itself when its body could
 * not be resumed (see `resumeValidator`), else a new `Response` with the same status, status text
 * and headers and a body that resumes (without `url`, `redirected` or `type`: fetch sets those only
 * on responses it makes). Carries the run's summary either way.
 */
export const resumableResponse = (response: Response, run: ResumedRun, sender: ResumeSender): Response => {
  const context: ResumeContext = { run, sender };
  const body = response.body;
  const validator =
    body && resumeValidator(run.method, response.status, (name) => response.headers.get(name));
  if (!validator) return response;
  const source = new ResumingSource(
    body,
    validator,
    declaredLength(response.headers.get('content-length')),
    context,
  );
  // No read-ahead: the body is read when the caller reads, as the original would be.
  const resuming = new Response(new ReadableStream(source, { highWaterMark: 0 }), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  source.target = resuming;
  return tagged(resuming, run);
};

/**
 * Resumed downloads, for a policy's, a route's or a call's `resume` option:
 *
 * ```ts
 * withRetry(fetch, { resume: createResume() });
 * ```
 *
 * A download whose body breaks after the response was handed over asks for the rest (`Range` from
 * the byte it broke at, `If-Range` with the response's strong ETag or Last-Modified), and only a
 * `206` that continues the same representation at that byte is spliced on; anything else ends the
 * body with a {@link ResumeError}. For a GET answered 200 without a content coding; each resume
 * counts as an attempt and draws on the budget. A factory rather than a boolean so that a program
 * that never resumes does not carry this code: bundlers leave out what is not imported.
 */
export const createResume = (...none: never[]): Resume => {
  noOptions('createResume', none);
  return branded({ response: resumableResponse }, 'resume');
};
