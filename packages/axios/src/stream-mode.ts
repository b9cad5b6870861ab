/**
 * Stream mode (opt-in, `discardedBodyCap`): an attempt that could still be retried asks the real
 * adapter for `responseType: 'stream'` and reads the body here, at most `discardBodyMaxBytes` before
 * the decision, so that a discarded body is never downloaded whole. The response the caller gets is
 * finished exactly as the adapter's own buffering would have finished it.
 */
import type { AttemptResult } from '@jitterbug/core/adapter';
import type { AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import type { Attempt } from './attempt.ts';
import type { AttemptFieldValue } from './config-fields.ts';
import {
  caughtError,
  errorAttempt,
  type InFlight,
  type RequestContext,
  type StreamMode,
} from './in-flight.ts';
import { statusResult } from './outcome.ts';
import {
  type BodyPhase,
  maxContentLengthOf,
  overContentLength,
  type StreamBody,
  settle,
} from './response-body.ts';

// No conversion made yet (`undefined` is a conversion's possible result).
const NOT_YET: unique symbol = Symbol('not converted');

/** `shouldRetry` sees the response without the stream it cannot use: `data` undefined. */
const withoutStream = (response: AxiosResponse): AxiosResponse => ({ ...response, data: undefined });

/**
 * A stream-mode response whose whole body had arrived (the http adapter's, whose conversion is
 * synchronous): converted as the adapter would have, once.
 */
class ArrivedResponse implements Attempt {
  declare readonly status: number;
  declare private readonly response: AxiosResponse;
  declare private readonly body: Uint8Array;
  declare private readonly config: InternalAxiosRequestConfig;
  declare private readonly convert: StreamBody['convert'];
  /** The converted body, or what converting it threw (`failed`). */
  declare private data: unknown;
  declare private failed: boolean;
  declare private readonly maxBytes: number;

  constructor(
    response: AxiosResponse,
    body: Uint8Array,
    ctx: RequestContext,
    convert: StreamBody['convert'],
  ) {
    this.status = response.status;
    this.response = response;
    this.body = body;
    this.config = ctx.config;
    this.convert = convert;
    this.maxBytes = ctx.run.options.discardBodyMaxBytes;
    this.data = NOT_YET;
    this.failed = false;
  }
  /** Converts the body once; `false` when that threw (the caller then gets that error). */
  private converted(): boolean {
    if (this.data === NOT_YET) {
      try {
        this.data = this.convert(this.body, this.response, this.config);
      } catch (error) {
        this.data = error;
        this.failed = true;
      }
    }
    return !this.failed;
  }
  result(): AttemptResult {
    if (!this.converted()) return statusResult(this.response, this.maxBytes, withoutStream(this.response));
    this.response.data = this.data;
    return statusResult(this.response, this.maxBytes);
  }
  finish(): AxiosResponse {
    if (!this.converted()) throw this.data;
    const response = this.response;
    response.data = this.data;
    return settle(response);
  }
  // Read to its end: the connection is already free for the next request.
  discard(): void {}
}

/** The caller wants the stream itself: decide on the status, hand the stream over untouched. */
const callerStreamAttempt = (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
  body: StreamBody,
): Attempt => ({
  status: response.status,
  result: () => statusResult(response, ctx.run.options.discardBodyMaxBytes),
  finish: () => {
    sent.timer?.stop();
    return settle(response);
  },
  discard: () => {
    const reader = new body.reader(response, ctx.config, ctx.run.options.discardBodyMaxBytes);
    reader.next().then(
      () => {
        reader.discard();
        sent.timer?.stop();
      },
      () => {},
    );
  },
});

/** A body still arriving: read up to the cap now, to the end only for the caller. */
const readBodyAttempt = async (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
  body: StreamBody,
): Promise<Attempt> => {
  const { config } = ctx;
  const { timer } = sent;
  const reader = new body.reader(response, config, ctx.run.options.discardBodyMaxBytes);
  const phase = await reader.next();
  if (phase.kind === 'failed') {
    timer?.stop();
    return errorAttempt(sent, caughtError(ctx, sent, phase.error));
  }
  // A body within the cap is converted before the decision (so that `shouldRetry` sees `data`),
  // at most once.
  let converted: Promise<unknown> | undefined;
  const convert = (bytes: Uint8Array): Promise<unknown> =>
    (converted ??= (async () => body.convert(bytes, response, config))());
  return {
    status: response.status,
    result: async () => {
      const maxBytes = ctx.run.options.discardBodyMaxBytes;
      if (phase.kind !== 'ended') return statusResult(response, maxBytes, withoutStream(response));
      try {
        response.data = await convert(phase.body);
        return statusResult(response, maxBytes);
      } catch {
        return statusResult(response, maxBytes, withoutStream(response));
      }
    },
    finish: async () => {
      let end: BodyPhase = phase;
      if (end.kind === 'over-cap') {
        reader.readToEnd();
        end = await reader.next();
      }
      timer?.stop();
      if (end.kind === 'failed') throw caughtError(ctx, sent, end.error);
      if (end.kind === 'ended') response.data = await convert(end.body);
      return settle(response);
    },
    discard: () => {
      timer?.stop();
      reader.discard();
    },
  };
};

/**
 * The adapter resolved with a stream-mode response. The body is read here, within the cap, instead
 * of by axios: at once when it has all arrived (nearly every small response), else through a reader.
 */
const streamModeAttempt = (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
  body: StreamBody,
): Attempt | Promise<Attempt> => {
  const { config } = ctx;
  if (config.responseType === 'stream') return callerStreamAttempt(ctx, sent, response, body);
  const arrived = body.arrived?.(response);
  if (arrived !== undefined) {
    sent.timer?.stop();
    const tooLong = overContentLength(arrived.length, maxContentLengthOf(config), config, response.request);
    if (tooLong) return errorAttempt(sent, tooLong);
    return new ArrivedResponse(response, arrived, ctx, body.convert);
  }
  return readBodyAttempt(ctx, sent, response, body);
};

/**
 * What a stream-mode attempt sets on the config: the stream response, with no `validateStatus` and
 * no `maxContentLength` (jitterbug applies both itself).
 */
const STREAM_FIELDS: readonly AttemptFieldValue[] = [
  ['responseType', 'stream'],
  ['validateStatus', null],
  ['maxContentLength', -1],
];

/** Stream mode for the adapter whose bodies `body` reads. */
export const streamModeOf = (body: StreamBody): StreamMode => ({
  fields: STREAM_FIELDS,
  attempt: (ctx, sent, response) => streamModeAttempt(ctx, sent, response, body),
});
