/**
 * The contract between a scenario and the client under test, inside the runtime: one request
 * described so that every client can send it its own way, and what the caller got, in terms every
 * client shares. A scenario never knows which client it runs on.
 */
import type { RetryInfo, RetryOverrides, RetryPolicyOptions, Sleep } from '@jitterbug/core';
import type { Hooks } from 'ky';

/** A request body, described so that every client can send it its own way. */
export type RequestBody =
  | { readonly kind: 'text'; readonly value: string }
  | { readonly kind: 'json'; readonly value: unknown }
  /** A web `ReadableStream` of these chunks, sent once. */
  | { readonly kind: 'stream'; readonly chunks: readonly string[] };

export interface RuntimeRequest {
  readonly method: string;
  /** An absolute URL. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
  readonly signal?: AbortSignal;
  /** This call's own settings (each client's `jitterbug` field). */
  readonly jitterbug?: RetryOverrides | false;
}

/** What the caller got, still as the client's own objects. */
export type CallResult =
  | {
      readonly kind: 'response';
      readonly status: number;
      readonly body: string;
      readonly info: RetryInfo | undefined;
    }
  /** The client rejected because of the status (ky's HTTPError, axios' validateStatus). */
  | {
      readonly kind: 'http-error';
      readonly status: number;
      readonly body: string | undefined;
      readonly error: unknown;
      readonly info: RetryInfo | undefined;
    }
  /** The client rejected with an error (network, abort), or reading the body failed. */
  | { readonly kind: 'error'; readonly error: unknown; readonly info: RetryInfo | undefined };

export interface RuntimeClient {
  send(request: RuntimeRequest): Promise<CallResult>;
  /** Whether `error` is how this client reports the caller's abort with `reason`. */
  isAbort(error: unknown, reason: unknown): boolean;
}

/** How a scenario wants its client made. */
export interface ClientSetup {
  /** The policy's options (with `routes`: made into a policy with `createRetryPolicy`). */
  readonly options: RetryPolicyOptions;
  /** ky only: hooks added with `.extend({ hooks })` after `kyRetry` (then made with `forcedRetries`). */
  readonly kyHooks?: Hooks;
}

/** Makes a client of one kind with jitterbug attached as `setup` says. */
export type ClientFactory = (setup: ClientSetup) => RuntimeClient;

export type { Sleep };
