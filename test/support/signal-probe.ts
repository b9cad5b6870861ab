/**
 * What a failure looks like from where a retry layer stands: the error a caller gets, flattened
 * (class, `code`, `message`, HTTP/2 code, the `cause` chain), and the dispatch handler callbacks an
 * undici interceptor sees on the way (which of them ran, whether request body bytes were written).
 * Used by the `signals-*` tests, which record what each client shows for each way a request can
 * fail before, or without, the server processing it.
 */

/** An error, flattened for assertions. */
export interface ErrorShape {
  /** The constructor's name (`TypeError`, `SocketError`, `AxiosError`, …). */
  readonly name: string;
  readonly code?: string;
  readonly message: string;
  /** undici's `http2ErrorCode` (the stream's RST code as undici read it), when set. */
  readonly http2ErrorCode?: number;
  readonly cause?: ErrorShape;
}

/** Flattens `error` and its `cause` chain (at most 5 deep). */
export const errorShape = (error: unknown, depth = 0): ErrorShape => {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const { code, http2ErrorCode, cause } = error as {
    code?: unknown;
    http2ErrorCode?: unknown;
    cause?: unknown;
  };
  return {
    name: error.constructor.name,
    ...(typeof code === 'string' ? { code } : {}),
    message: error.message,
    ...(typeof http2ErrorCode === 'number' ? { http2ErrorCode } : {}),
    ...(cause !== undefined && depth < 5 ? { cause: errorShape(cause, depth + 1) } : {}),
  };
};

/** The `code`s found on the error and down its `cause` chain, outermost first. */
export const codesOf = (shape: ErrorShape): string[] => [
  ...(shape.code ? [shape.code] : []),
  ...(shape.cause ? codesOf(shape.cause) : []),
];

/** What one dispatch (one call of the interceptor's `dispatch`) went through. */
export interface DispatchTrace {
  /** Handler callbacks in the order undici called them (`onResponseData`/`onData` once per run of chunks). */
  readonly events: string[];
  /** Request body bytes undici reported written (`onBodySent`), over every time it sent the request. */
  bodyBytesSent: number;
}

// New (undici 7 and 8) and legacy (undici 6 and 7, Node's bundled fetch) handler callbacks.
const FORWARDED = [
  'onRequestStart',
  'onRequestUpgrade',
  'onResponseStart',
  'onResponseData',
  'onResponseEnd',
  'onResponseError',
  'onConnect',
  'onUpgrade',
  'onHeaders',
  'onData',
  'onComplete',
  'onError',
] as const;
// Optional callbacks undici calls when present: defined on every wrapper so that they are seen.
const OBSERVED = ['onResponseStarted', 'onBodySent', 'onRequestSent'] as const;

type Handler = Record<string, unknown>;
type Dispatch = (options: unknown, handler: Handler) => boolean;

/**
 * An interceptor for `Dispatcher.compose` (undici 7 and 8) that records the callbacks each dispatch
 * gets, passing everything on unchanged. It keeps the handler's shape (new or legacy API: undici
 * tells them apart by which methods exist), adding only the optional observers.
 */
export const traceDispatches = (): {
  readonly traces: DispatchTrace[];
  readonly interceptor: (dispatch: Dispatch) => Dispatch;
} => {
  const traces: DispatchTrace[] = [];
  const interceptor =
    (dispatch: Dispatch): Dispatch =>
    (options, handler) => {
      const trace: DispatchTrace = { events: [], bodyBytesSent: 0 };
      traces.push(trace);
      const note = (name: string): void => {
        // A run of data chunks is one event: the count depends on how the bytes were framed.
        if ((name === 'onResponseData' || name === 'onData') && trace.events.at(-1) === name) return;
        trace.events.push(name);
      };
      const wrapper: Handler = {};
      for (const name of FORWARDED) {
        const original = handler[name];
        if (typeof original !== 'function') continue;
        wrapper[name] = (...args: unknown[]) => {
          note(name);
          return original.apply(handler, args);
        };
      }
      for (const name of OBSERVED) {
        wrapper[name] = (...args: unknown[]) => {
          note(name);
          if (name === 'onBodySent') trace.bodyBytesSent += (args[0] as { length: number }).length;
          const original = handler[name];
          return typeof original === 'function' ? original.apply(handler, args) : undefined;
        };
      }
      return dispatch(options, wrapper);
    };
  return { traces, interceptor };
};
