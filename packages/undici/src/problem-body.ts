/**
 * A failed answer's `application/problem+json` body, read before the run decides (its `type` is a
 * RateLimit problem type that decides: `quota-exceeded`, `temporary-reduced-capacity`, …): what
 * arrives is held, at most `discardBodyMaxBytes` of it, then replayed to wherever the decision sends
 * the response (the caller, a drain, or a hold while a hook decides), so the caller gets every byte.
 * The body flows meanwhile (nothing is paused): past the limit, the run decides without it.
 */
import { isProblemJson, problemType } from '@jitterbug/core/adapter';
import { HeldBody, type HeldFor } from './held-body.ts';
import type { Controller, HeaderRecord } from './types.ts';

/**
 * Whether an answer's body is read for its problem type: a retrying request's failure (not one for the
 * rest of a body, which is delivered or refused as it is), of that type, within the limit. The request
 * and its hedged copies both ask this.
 */
export const readsProblem = (
  options: { readonly retry: boolean; readonly discardBodyMaxBytes: number },
  resuming: boolean,
  status: number,
  headers: HeaderRecord,
): boolean => {
  const maxBytes = options.discardBodyMaxBytes;
  if (!options.retry || resuming || status < 400 || maxBytes <= 0) return false;
  const type = headers['content-type'];
  return (
    isProblemJson(Array.isArray(type) ? type[0] : type) && !(Number(headers['content-length']) > maxBytes)
  );
};

export class ProblemBody extends HeldBody {
  declare private readonly request: HeldFor;
  /** The attempt's controller, whose body this is. */
  declare private readonly controller: Controller;
  declare private readonly maxBytes: number;
  /** Decides on the answer, with its problem type when the body gave one. */
  declare private readonly decide: (problemType: string | undefined) => void;
  declare private bytes: number;

  constructor(
    request: HeldFor,
    controller: Controller,
    maxBytes: number,
    decide: (problemType: string | undefined) => void,
  ) {
    super();
    this.request = request;
    this.controller = controller;
    this.maxBytes = maxBytes;
    this.decide = decide;
    this.bytes = 0;
  }

  override data(chunk: Buffer): void {
    super.data(chunk);
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) this.decided(undefined);
  }

  override end(controller: Controller, trailers: HeaderRecord): void {
    super.end(controller, trailers);
    // Everything held, and none of it past the limit.
    const chunks = this.events.filter((event): event is Buffer => Buffer.isBuffer(event));
    this.decided(problemType(Buffer.concat(chunks), this.maxBytes));
  }

  override error(error: Error): void {
    super.error(error);
    this.decided(undefined);
  }

  /** The run decides; what was held follows the body to where the decision sent it. */
  private decided(type: string | undefined): void {
    this.decide(type);
    if (this.request.sink !== this) this.replay(this.request, this.controller);
  }
}
