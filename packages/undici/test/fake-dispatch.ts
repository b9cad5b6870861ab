/**
 * A scripted fake of undici's next `dispatch`, for the interceptor alone: every handler call undici
 * could make (and when) is under the test's control.
 */
import type { Controller, DispatchOpts, HeaderRecord, NewHandler, NextDispatch } from '../src/types.ts';

/** undici's controller of one dispatch: it records what it is asked, and reports an abort as undici does. */
export class FakeController implements Controller {
  aborted = false;
  paused = false;
  reason: unknown = null;
  rawHeaders: Controller['rawHeaders'] = null;
  rawTrailers: Controller['rawTrailers'] = null;
  calls: string[] = [];
  readonly #onAbort: (reason: Error) => void;
  constructor(onAbort: (reason: Error) => void = () => {}) {
    this.#onAbort = onAbort;
  }
  abort(reason: Error): void {
    this.calls.push('abort');
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.#onAbort(reason);
  }
  pause(): void {
    this.calls.push('pause');
    this.paused = true;
  }
  resume(): void {
    this.calls.push('resume');
    this.paused = false;
  }
}

export interface Dispatched {
  readonly opts: DispatchOpts;
  readonly handler: NewHandler;
  /** Starts the attempt as undici would; aborting it reports the reason through onResponseError. */
  start(): FakeController;
}

/** The next dispatch: it records each dispatch, which the test then starts. */
export const fakeNext = (): { next: NextDispatch; dispatched: Dispatched[] } => {
  const dispatched: Dispatched[] = [];
  const next: NextDispatch = (opts, handler) => {
    dispatched.push({
      opts,
      handler,
      start() {
        const controller = new FakeController((reason) => handler.onResponseError?.(controller, reason));
        handler.onRequestStart?.(controller, { attempt: dispatched.length });
        return controller;
      },
    });
    return true;
  };
  return { next, dispatched };
};

/** A new-API caller that records what it is told. */
export class RecordingCaller implements NewHandler {
  events: string[] = [];
  controller: Controller | undefined;
  headers: HeaderRecord | undefined;
  error: Error | undefined;
  chunks: Buffer[] = [];
  onRequestStart(controller: Controller): void {
    this.events.push('start');
    this.controller = controller;
  }
  onResponseStart(_c: Controller, status: number, headers: HeaderRecord): void {
    this.events.push(`response ${status}`);
    this.headers = headers;
  }
  onResponseData(_c: Controller, chunk: Buffer): void {
    this.events.push('data');
    this.chunks.push(chunk);
  }
  onResponseEnd(): void {
    this.events.push('end');
  }
  onResponseError(_c: Controller | null, error: Error): void {
    this.events.push('error');
    this.error = error;
  }
}
