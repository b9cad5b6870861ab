/**
 * ky 1 and ky 2 call hooks with different arguments: ky 1 passes `beforeRequest` positional
 * arguments, ky 2 one state object. These read either shape, so one set of hooks serves both majors.
 */

/** What the hooks read of ky's normalized options (same in both majors). */
export interface KyOptionsView {
  /** ky's per-call object, the same for every hook of one call. */
  readonly context?: object;
  readonly signal?: AbortSignal | null;
  readonly body?: unknown;
  /** ky's retry options, normalized (ky fills in its default methods when given a number). */
  readonly retry?: { readonly methods?: readonly string[]; readonly limit?: number } | number;
}

const isRequest = (value: unknown): value is Request =>
  value instanceof Request || Object.prototype.toString.call(value) === '[object Request]';

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
