/**
 * What the Node side and the code inside a runtime exchange: a job (which scenario, on which
 * client, against which server) and its JSON reply. Everything here crosses a process, a browser
 * page or a worker as JSON, so it holds plain data only.
 */

/** The runtimes of the matrix. */
export type RuntimeName = 'chromium' | 'firefox' | 'bun' | 'deno' | 'workerd' | 'node22' | 'node24';

/**
 * The clients under test: `withRetry(fetch)`, ky with `kyRetry`, axios with `attachRetry` on its
 * xhr or fetch adapter.
 */
export type ClientName = 'fetch' | 'ky' | 'axios-xhr' | 'axios-fetch';

/** One scenario to run on one client inside a runtime. */
export interface Job {
  readonly scenario: string;
  readonly client: ClientName;
  readonly runtime: RuntimeName;
  /** The scripted server's origin, e.g. `http://127.0.0.1:40123`. */
  readonly baseUrl: string;
  /** The path prefix of this runtime, client and scenario: every path the scenario uses is under it. */
  readonly prefix: string;
}

/** An error as JSON: what a runtime throws, down its `cause` chain. */
export interface ErrorShape {
  readonly name: string;
  readonly message: string;
  /** The name of the error's class (`TypeError`, `HTTPError`, `AxiosError`, …). */
  readonly className: string;
  /** `code` when it has one (a string or a number, as the runtime gives it). */
  readonly code?: string | number;
  /** Own enumerable properties besides `code`, `message`, `cause` and `stack`, as text. */
  readonly props?: Readonly<Record<string, string>>;
  readonly cause?: ErrorShape;
  /** Only for errors of the harness itself (a scenario that threw). */
  readonly stack?: string;
}

/** `getRetryInfo()`'s summary as JSON. */
export interface InfoRecord {
  readonly attempts: number;
  readonly retries: readonly string[];
  readonly totalDelayMs: number;
  readonly outcome: 'success' | 'failure';
  readonly reason: string;
  readonly status: number | null;
  readonly route: string | null;
}

/** What one call of the client under test ended with. */
export interface CallRecord {
  readonly kind: 'response' | 'http-error' | 'error';
  readonly status?: number;
  /** The response body as text (a response, or an http-error whose body could be read). */
  readonly body?: string;
  readonly error?: ErrorShape;
  /** With an abort: the error is the client's way of reporting the caller's abort with its reason. */
  readonly abortedWithReason?: boolean;
  /** `null`: the client gave no retry info. */
  readonly info: InfoRecord | null;
}

/** One `onRetry` event the policy fired. */
export interface RetryRecord {
  readonly attempt: number;
  readonly reason: string;
  readonly delayMs: number;
  readonly delaySource: string;
  readonly status: number | null;
  readonly error: ErrorShape | null;
}

/** What a scenario reports from inside the runtime. */
export interface ScenarioResult {
  readonly calls: readonly CallRecord[];
  /** Every wait the injected sleep was asked for, in ms, in order. */
  readonly waits: readonly number[];
  readonly retries: readonly RetryRecord[];
  /** Anything else the scenario wants the Node side to check. */
  readonly notes?: Readonly<Record<string, string | number | boolean | null>>;
}

/** The reply to a job: the scenario's result, or why it could not run (the harness failed). */
export type JobReply =
  | { readonly ok: true; readonly result: ScenarioResult }
  | { readonly ok: false; readonly error: ErrorShape };

/** Marks a reply line on a child runtime's stdout (anything else it prints is not a reply). */
export const REPLY_MARK = '@@jitterbug-reply ';
