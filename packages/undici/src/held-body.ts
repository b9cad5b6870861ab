/**
 * What arrives of a response while a hook of the caller's decides it (a `shouldRetry` or `onRetry`
 * that returns a promise): the attempt is paused and what still comes is held, then replayed to
 * wherever the decision sends the response (the caller, or a drain).
 */
import type { BodySink, Controller, HeaderRecord } from './types.ts';

type HeldEvent = Buffer | { readonly end: HeaderRecord } | { readonly error: Error };

/** Whose response is held: a request, or a hedged copy reading its problem body. */
export interface HeldFor {
  /** Where the response's body goes now: this held body until the decision, then the caller or a drain. */
  readonly sink: BodySink | undefined;
}

export class HeldBody implements BodySink {
  declare protected readonly events: HeldEvent[];

  constructor() {
    this.events = [];
  }

  /**
   * Holds the response of `controller` until `pending` settles: then `decided` acts on its value
   * and what was held follows the body (paused still if the caller paused it: `outer.paused`), or a
   * hook's rejection goes to `failed`. Nothing happens when the request has given up on the response
   * meanwhile (the caller aborted).
   */
  static until(
    request: HeldFor & { readonly outer: { readonly paused: boolean } },
    controller: Controller,
    pending: PromiseLike<unknown>,
    decided: (value: unknown) => void,
    failed: (hookError: Error) => void,
  ): HeldBody {
    const held = new HeldBody();
    controller.pause();
    pending.then(
      (value) => {
        if (request.sink !== held) return;
        decided(value);
        held.replay(request, controller);
        if (!request.outer.paused) controller.resume();
      },
      (hookError: unknown) => {
        if (request.sink === held) failed(hookError as Error);
      },
    );
    return held;
  }

  data(chunk: Buffer): void {
    this.events.push(chunk);
  }

  end(_controller: Controller, trailers: HeaderRecord): void {
    this.events.push({ end: trailers });
  }

  error(error: Error): void {
    this.events.push({ error });
  }

  /** Replays what was held, in order, to where the body goes now, while it goes somewhere. */
  protected replay(request: HeldFor, controller: Controller): void {
    for (const event of this.events) {
      const sink = request.sink;
      if (!sink) return;
      if (Buffer.isBuffer(event)) sink.data(event);
      else if ('end' in event) sink.end(controller, event.end);
      else sink.error(event.error);
    }
  }
}
