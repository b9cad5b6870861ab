/**
 * The contract between the conformance scenarios and each client. A driver turns one scenario
 * request into a call of its client (with jitterbug attached) and reports what the caller got, in
 * terms every client shares. Scenarios never know which client they run on.
 */
import {
  createRetryPolicy,
  type RetryInfo,
  type RetryPolicy,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import { isRetryPolicy } from '@jitterbug/core/adapter';

/** A request body, described so that every client can send it its own way. */
export type ConformanceBody =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'bytes'; readonly value: Uint8Array }
  | { readonly kind: 'form'; readonly value: URLSearchParams }
  /** A stream the client must read once: a Node `Readable` or a web `ReadableStream`, as the client takes. */
  | { readonly kind: 'stream'; readonly chunks: readonly string[] };

export interface ConformanceRequest {
  readonly method: string;
  /** Path on the scripted server, e.g. `/items/1`. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: ConformanceBody;
  readonly signal?: AbortSignal;
}

/** What the caller got. */
export type ConformanceOutcome =
  /** The client resolved with a response; `body` is the whole body read as text. */
  | { readonly kind: 'response'; readonly status: number; readonly body: string; readonly headers: Headers }
  /** The client rejected because of the status (axios' validateStatus, ky's HTTPError). */
  | { readonly kind: 'http-error'; readonly status: number; readonly error: unknown }
  /**
   * The client rejected with an error (network, abort, timeout), or reading the body failed: then
   * `partial` is the part of the body read before the error.
   */
  | { readonly kind: 'error'; readonly error: unknown; readonly partial?: string };

export interface ConformanceResult {
  readonly outcome: ConformanceOutcome;
  /** The retry summary, read the way this client documents (getRetryInfo, onFinish, …), when available. */
  readonly info?: RetryInfo | undefined;
}

export interface ConformanceClient {
  send(request: ConformanceRequest): Promise<ConformanceResult>;
  /** Closes the client's connections once its requests are done. */
  close(): Promise<void>;
  /** Closes them at once, failing what is still in flight (undici drivers). */
  destroy?(): Promise<void>;
}

/**
 * How a client reaches the scripted server: plain HTTP/1.1 (`http`), HTTP/1.1 over TLS (`tls`), or
 * HTTP/2 over TLS (`h2`; the server offers only `h2` in ALPN). Over TLS the client trusts `ca`, the
 * server's certificate, made at test time.
 */
export type TransportName = 'http' | 'tls' | 'h2';

export interface Transport {
  readonly name: TransportName;
  /** The certificate to trust (`tls`, `h2`). */
  readonly ca?: string;
  /** undici's `bodyTimeout` (its agents only): how long a delivered body may stall. */
  readonly bodyTimeoutMs?: number;
}

/**
 * Which proofs that the server never processed a request (gRFC A6: retried whatever the method)
 * jitterbug gets from this client, besides the codes every client shows (`ECONNREFUSED`,
 * `ENOTFOUND`, `EAI_AGAIN`, `UND_ERR_CONNECT_TIMEOUT`). `false`: the client shows the failure so
 * that it cannot be told from one after the server had the request (or not at all), and the method
 * rule alone decides. The core README's "Transparent retries" has the same as a table.
 */
export interface UnprocessedSignals {
  /** A connection whose TLS handshake failed or was reset (a plain `ECONNRESET` by its code). */
  readonly handshake: boolean;
  /** HTTP/2 RST_STREAM `REFUSED_STREAM` (`h2` transport). */
  readonly refusedStream: boolean;
  /** HTTP/2 GOAWAY whose last stream id is below the request's (`h2` transport). */
  readonly goawayBelow: boolean;
}

export interface ConformanceDriver {
  /** Shown in test names, e.g. `axios`, `undici request (undici 8)`. */
  readonly name: string;
  /** How a final status >= 400 reaches the caller: as a response, or as an `http-error`. */
  readonly statusesReject: boolean;
  /**
   * Whether the client reads the whole body before handing the response over (axios). Such a
   * client can retry a reset in the middle of a body; streaming clients hand the error to the caller.
   */
  readonly buffersResponses: boolean;
  /**
   * Whether `error` is what this client rejects with, without jitterbug, when the connection is
   * lost before a response: after the last attempt the caller must get that, unchanged in type.
   */
  isNetworkError(error: unknown): boolean;
  /**
   * Whether `error` is how this client reports the caller's abort with `reason`. `beforeSend`: the
   * signal was already aborted when the request was made, so the client may have rejected it
   * itself before jitterbug ran.
   */
  isAbort(error: unknown, reason: unknown, beforeSend?: boolean): boolean;
  /**
   * Whether `error` is what this client's adapter documents the caller gets once the last attempt
   * timed out (`attemptTimeoutMs`): the core's `AttemptTimeoutError`, or the client's own timeout
   * error carrying it, never a cancellation.
   */
  isAttemptTimeout(error: unknown): boolean;
  /**
   * The length a response declared, when `error` is how this client ends a body that ran past it (a
   * resumed body's `206` carrying more than its range, undici #4970): the core's `ResumeError` where
   * jitterbug reads the body itself (the fetch engine), undici's `UND_ERR_RES_CONTENT_LENGTH_MISMATCH`
   * where undici frames it. Streaming clients only (a client that reads whole bodies does not resume).
   */
  overlongBodyDeclared?(error: unknown): number | undefined;
  /**
   * `false` when the adapter cannot apply the core's `attemptTimeoutMs` on this client (ky 1, which
   * has no hook around its fetch): a slow answer then simply arrives. Default: applied.
   */
  readonly appliesAttemptTimeout?: false;
  /**
   * `false` when the client sends each attempt once whatever the policy's `hedge` (axios in stream
   * mode, which the suite's axios drivers use: a body read by jitterbug is not raced). Default: hedged.
   */
  readonly hedges?: false;
  /**
   * Whether the client leaves open the connection of a request aborted after another request was
   * answered through the same undici 7 `Agent` (measured without jitterbug: it stays until the server
   * answers or the agent closes), as a lost hedged copy is. undici 8 and axios' http adapter close it.
   */
  readonly abortKeepsSocket?: true;
  /** Transports besides `http` that the client is run over (see `transports.test.ts`). */
  readonly transports?: readonly Exclude<TransportName, 'http'>[];
  readonly signals: UnprocessedSignals;
  /**
   * Whether the client takes an HTTP/2 RST_STREAM `CANCEL` in the middle of a body for its end and
   * hands over the part received as the whole body (Node's fetch over undici 7 does: see
   * `test/support/signals-h2-node-fetch.test.ts`).
   */
  readonly truncatesOnCancel?: true;
  /**
   * Whether the client fails every stream of a connection that gets a GOAWAY, those the server is
   * answering too (undici 7: `test/support/signals-h2-node-fetch.test.ts`): a response whose body had
   * begun then ends in an error, which no one may retry.
   */
  readonly goawayFailsAnswers?: true;
  /**
   * The codes jitterbug reads for an HTTP/2 RST_STREAM before the response other than
   * `REFUSED_STREAM` (`INTERNAL_ERROR`, `CANCEL`, …). `ERR_HTTP2_STREAM_ERROR` is among the core's
   * default `errorCodes`, the others (undici 7's `UND_ERR_INFO` through Node's fetch) are not: the
   * scenarios list them all, so that an idempotent request is sent again on each.
   */
  readonly streamResetCodes?: readonly string[];
  /**
   * A client for the scripted server at `baseUrl`, with jitterbug attached using `options`, over
   * `transport` (default plain `http`).
   */
  create(
    baseUrl: string,
    options: DriverOptions,
    transport?: Transport,
  ): ConformanceClient | Promise<ConformanceClient>;
}

/** What a scenario gives a driver: options (routes included) for a new policy, or a policy to share. */
export type DriverOptions = RetryPolicy | RetryPolicyOptions;

/**
 * The scenario's policy, or a new one from its options; `onFinish` (when given) is called after the
 * scenario's own, for drivers that read the summary that way.
 */
export const policyOf = (options: DriverOptions, onFinish?: (info: RetryInfo) => void): RetryPolicy => {
  if (isRetryPolicy(options)) return options;
  if (!onFinish) return createRetryPolicy(options);
  return createRetryPolicy({
    ...options,
    onFinish: (info) => {
      onFinish(info);
      return options.onFinish?.(info);
    },
  });
};
