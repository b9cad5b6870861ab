/**
 * ky 1 and ky 2 call the same hooks with different arguments: ky 1 passes `beforeRequest` and
 * `afterResponse` positional arguments and `beforeError` only the error, ky 2 passes one state
 * object to every hook. These read either shape, so one set of hooks serves both majors.
 */

/** What the hooks read of ky's normalized options (same in both majors). */
export interface KyOptionsView {
  readonly context?: object;
  readonly signal?: AbortSignal | null;
  readonly body?: unknown;
  readonly retry?: unknown;
  /** ky's per-attempt timeout: milliseconds or `false`. */
  readonly timeout?: unknown;
}

const objectToString = Object.prototype.toString;
const isRequest = (value: unknown): value is Request =>
  value instanceof Request || objectToString.call(value) === '[object Request]';

/** `beforeRequest`: ky 1 `(request, options, state)`, ky 2 `({ request, options })`. */
export const beforeRequestArgs = (args: readonly unknown[]): { request: Request; options: KyOptionsView } => {
  if (isRequest(args[0])) return { request: args[0], options: args[1] as KyOptionsView };
  return args[0] as { request: Request; options: KyOptionsView };
};

/** `afterResponse`: ky 1 `(request, options, response, state)`, ky 2 `({ request, options, response })`. */
export const afterResponseArgs = (
  args: readonly unknown[],
): { options: KyOptionsView; response: Response; ky1: boolean } => {
  if (isRequest(args[0]))
    return { options: args[1] as KyOptionsView, response: args[2] as Response, ky1: true };
  const state = args[0] as { options: KyOptionsView; response: Response };
  return { options: state.options, response: state.response, ky1: false };
};

/** `beforeRetry`: `({ request, options, error })` in both majors. */
export const beforeRetryArgs = (args: readonly unknown[]): { options: KyOptionsView; error: unknown } =>
  args[0] as { options: KyOptionsView; error: unknown };

/**
 * `beforeError`: ky 1 `(httpError, state)` (the options are on the `HTTPError`), ky 2
 * `({ options, error })`.
 */
export const beforeErrorArgs = (
  args: readonly unknown[],
): { options: KyOptionsView | undefined; error: unknown; ky1: boolean } => {
  if (args[0] instanceof Error) {
    const error = args[0] as Error & { options?: KyOptionsView };
    return { options: error.options, error, ky1: true };
  }
  const state = args[0] as { options: KyOptionsView; error: unknown };
  return { options: state.options, error: state.error, ky1: false };
};
