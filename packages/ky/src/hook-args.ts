/**
 * ky 1 and ky 2 call hooks with different arguments: ky 1 passes `beforeRequest` positional
 * arguments, ky 2 one state object. These read either shape, so one set of hooks serves both majors.
 */

/** ky's retry option, normalized (ky fills in its default methods when given a number). */
export interface KyRetryView {
  limit?: number;
  methods?: readonly string[];
  shouldRetry?: (state: { readonly error: unknown }) => unknown;
  delay?: (attempt: number) => number;
  jitter?: unknown;
}

/** What the hooks read of ky's normalized options (same in both majors). */
export interface KyOptionsView {
  /** ky's per-call object, the same for every hook of one call. */
  readonly context?: object;
  readonly signal?: AbortSignal | null;
  readonly body?: unknown;
  readonly retry?: KyRetryView | number;
  /** The call's `jitterbug` option (ky 2: the call's state, put there by the `init` hook). */
  readonly jitterbug?: unknown;
  /** ky 1 shows these to hooks; ky 2 only to `init` hooks. */
  readonly fetch?: unknown;
  readonly timeout?: unknown;
  /** ky 1's base of the call's URL (ky 2 shows its `prefix` and `baseUrl` to `init` hooks). */
  readonly prefixUrl?: unknown;
}

/** A call's options as ky 2's `init` hooks get them: whole, before ky normalizes them, per call. */
export interface KyInitOptions extends KyOptionsView {
  json?: unknown;
  jitterbug?: unknown;
  readonly totalTimeout?: unknown;
  readonly prefix?: unknown;
  readonly baseUrl?: unknown;
  readonly parseJson?: (text: string, context: object) => unknown;
  readonly hooks: {
    beforeRequest: unknown[];
    beforeRetry: unknown[];
    beforeError: unknown[];
  };
}

const tag = Object.prototype.toString;

/** A `Request` or a `Response`, from this realm or another (a test's, a worker's). */
export const isRequest = (value: unknown): value is Request =>
  value instanceof Request || tag.call(value) === '[object Request]';
export const isResponse = (value: unknown): value is Response =>
  value instanceof Response || tag.call(value) === '[object Response]';

/** `beforeRequest`: ky 1 `(request, options, state)`, ky 2 `({ request, options })`. */
export const beforeRequestArgs = (args: readonly unknown[]): { request: Request; options: KyOptionsView } =>
  isRequest(args[0])
    ? { request: args[0], options: args[1] as KyOptionsView }
    : (args[0] as { request: Request; options: KyOptionsView });

/** `beforeRetry`: `({ request, options, error })` in both majors. */
export const beforeRetryArgs = (
  args: readonly unknown[],
): { request: Request; options: KyOptionsView; error: unknown } =>
  args[0] as { request: Request; options: KyOptionsView; error: unknown };
