/**
 * Resuming a delivered body that breaks (the opt-in `resume`), as a handler of its own between the
 * caller's handler and the requests (as undici keeps its `dump` interceptor apart from `retry`): it
 * hands the response over, counts the body bytes the caller got, and when the body breaks asks the
 * run whether to ask for the rest (`resumeDecision`); then it sends a request for the rest (`sendRest`) and splices
 * the body of the answer that request accepts (`checkResumed`) onto the caller's. The caller sees one
 * response and one end; the body never comes to more than its response declared. Every decision is
 * the core's.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { Duplex } from 'node:stream';
import type { Decision, RetryRun } from '@jitterbug/core/adapter';
import { resumeDecision, resumeValidator, setRetryInfo } from '@jitterbug/core/adapter';
import { rangeEnd, ranLong } from './body-length.ts';
import { callerScope, inScope } from './caller-scope.ts';
import { CallerSide, type CallerSideOwner, NO_SETTINGS, type RequestSettings } from './caller-side.ts';
import { responseHeaderGetter } from './request-info.ts';
import { sendRest } from './rest-request.ts';
import { RetryingRequest } from './retrying-request.ts';
import type { Controller, HeaderRecord, NewHandler } from './types.ts';
import type { Downstream } from './undici-retry.ts';

/**
 * `head`: the first request has handed nothing over yet; `body`: the caller is reading the body (of
 * the first response, then of each accepted rest); `deciding`: the body broke, the run decides;
 * `rest`: a request for the rest is under way, its answers not the caller's.
 */
type Phase = 'head' | 'body' | 'deciding' | 'rest' | 'done';

/** The caller's handler, with resuming of its response's body around it. */
export class ResumeHandler implements NewHandler, CallerSideOwner {
  declare private readonly scope: AsyncResource | undefined;
  /** The controller of the request feeding this handler now (the first, then each rest). */
  declare inner: Controller | null;
  /** The call's first request, whose caller this handler is. */
  declare private first: RetryingRequest | undefined;
  declare private readonly downstream: Downstream;
  declare private readonly caller: NewHandler;
  declare private readonly run: RetryRun;
  declare private readonly tagHeaders: boolean;
  /** What the caller sees, and the controller it holds, whichever request is current. */
  declare private readonly outer: CallerSide;
  declare private phase: Phase;
  declare private callerAbort: Error | undefined;
  /** The validator the body can be resumed with (`If-Range`); `undefined`: it cannot be. */
  declare private validator: string | undefined;
  /** The headers object the caller was handed: undici 8's `request()` reads the summary from it. */
  declare private headers: HeaderRecord | undefined;

  constructor(downstream: Downstream, caller: NewHandler, run: RetryRun, tagHeaders: boolean) {
    this.scope = callerScope(run, caller);
    this.inner = null;
    this.first = undefined;
    this.downstream = downstream;
    this.caller = caller;
    this.run = run;
    this.tagHeaders = tagHeaders;
    // The first request put the summary on the response already.
    this.outer = new CallerSide(this, caller, NO_SETTINGS, false);
    this.phase = 'head';
    this.callerAbort = undefined;
    this.validator = undefined;
    this.headers = undefined;
  }

  /** Makes the call's first request (with `settings`), whose caller this handler is. */
  request(settings: RequestSettings): RetryingRequest {
    this.first = new RetryingRequest(this.downstream, this, this.run, settings, this.tagHeaders, this.scope);
    return this.first;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.inner = controller;
    this.outer.start(context);
  }

  onRequestUpgrade(controller: Controller, statusCode: number, headers: HeaderRecord, socket: Duplex): void {
    this.phase = 'done';
    this.outer.upgrade(controller, statusCode, headers, socket);
  }

  onResponseStarted(): void {
    // The answer for the rest of a body is not a response of the caller's.
    if (this.phase === 'head') this.caller.onResponseStarted?.();
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: HeaderRecord,
    statusMessage?: string,
  ): void {
    if (this.phase === 'rest') {
      // The request for the rest accepted this answer: its body goes on as more of the caller's.
      if (statusCode >= 200) this.spliced(controller, headers);
      return;
    }
    if (statusCode < 200) {
      this.outer.interim(controller, statusCode, headers, statusMessage);
      return;
    }
    this.phase = 'body';
    this.headers = headers;
    this.validator = resumeValidator(this.run.method, statusCode, responseHeaderGetter(headers));
    this.outer.respond(controller, statusCode, headers, statusMessage, this.run);
  }

  private spliced(controller: Controller, headers: HeaderRecord): void {
    this.phase = 'body';
    // A body that declared no length comes to where the range the rest covers ends.
    if (this.outer.declared === -1) this.outer.declared = rangeEnd(headers);
    const summary = this.run.summary;
    if (summary && this.tagHeaders) setRetryInfo(this.headers!, summary);
    // The caller paused the body before it broke: this answer waits as the first one did.
    if (this.outer.paused) controller.pause();
  }

  // Each answer's own length is its request's to check; the whole body's is checked here.
  onResponseData(_controller: Controller, chunk: Buffer): void {
    this.outer.data(chunk);
  }

  onResponseEnd(controller: Controller, trailers: HeaderRecord): void {
    this.outer.end(controller, trailers);
  }

  onResponseError(_controller: Controller | null, error: Error): void {
    this.responseFailed(error, false);
  }

  responseEnded(): void {
    this.phase = 'done';
  }

  /** The request failed, or the body broke (`open`: it ran long, and its request is still open). */
  responseFailed(error: Error, open: boolean): void {
    if (this.phase === 'done') return;
    const broke = this.phase === 'body' && this.validator !== undefined;
    if (!broke || open || this.callerAbort || ranLong(error)) {
      this.fail(error);
      // A rest longer than it said (undici #4970): its request ends too, its connection closed.
      if (open) this.inner?.abort(error);
      return;
    }
    // The delivered body broke: the run decides whether to ask for the rest.
    this.phase = 'deciding';
    inScope(this.scope, () => {
      let decision: Decision | Promise<Decision>;
      try {
        decision = resumeDecision(this.run, error);
      } catch (hookError) {
        this.fail(hookError as Error);
        return;
      }
      if (!(decision instanceof Promise)) this.decided(error, decision);
      else
        decision.then(
          (d) => this.decided(error, d),
          (hookError: Error) => this.fail(hookError),
        );
    });
  }

  private decided(error: Error, decision: Decision): void {
    if (this.phase !== 'deciding') return;
    if (!decision.retry) {
      this.fail(error);
      return;
    }
    this.phase = 'rest';
    const { bytes, declared } = this.outer;
    sendRest(
      this.downstream,
      this,
      this.run,
      this.scope,
      this.first!.opts!,
      decision.delayMs,
      bytes,
      this.validator!,
      declared,
    );
  }

  onRequestSent(): void {
    this.caller.onRequestSent?.();
  }

  onBodySent(chunk: Buffer): void {
    this.caller.onBodySent?.(chunk);
  }

  /** The caller aborted: the current request ends with its reason, or the body at once if none is. */
  abortByCaller(reason: Error): void {
    if (this.callerAbort || this.phase === 'done') return;
    this.callerAbort = reason;
    if (this.phase !== 'deciding') {
      this.inner?.abort(reason);
      return;
    }
    // Nothing is in flight while the run decides whether to resume: it ends as aborted, and the
    // decision then comes unheard.
    queueMicrotask(() => {
      this.run.cancel(reason);
      this.fail(reason);
    });
  }

  private fail(error: Error): void {
    if (this.phase === 'done') return;
    this.phase = 'done';
    // The run may have finished anew since the request that failed tagged it (a resume refused).
    this.outer.fail(error, this.run.summary);
  }
}
