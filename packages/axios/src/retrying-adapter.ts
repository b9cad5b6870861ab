/**
 * The adapter that jitterbug puts in front of the real one for one request. axios calls it after
 * the request interceptors and `transformRequest`, and hands its result to `transformResponse` and
 * the response interceptors, so retries happen below everything the user plugged in: each of those
 * runs once per request, as without retries.
 */
import type { Decision, HeaderGetter, RetryPolicy } from '@jitterbug/core';
import {
  type AttemptResult,
  attemptMayRetry,
  bodyKind,
  mayRetry,
  type RetryRun,
  setRetryInfo,
} from '@jitterbug/core/adapter';
import axios, {
  type AxiosAdapter,
  AxiosError,
  AxiosHeaders,
  type AxiosRequestConfig,
  type AxiosResponse,
  type InternalAxiosRequestConfig,
  isCancel,
} from 'axios';
import {
  type AttemptTimer,
  attemptTimeoutError,
  callerCancellation,
  startAttemptTimer,
  throwIfCancelled,
  withAbortReason,
} from './abort.ts';
import { convertFetchBody, WebBodyReader } from './fetch-body.ts';
import { errorResult, isStatusRejection, statusResult } from './outcome.ts';
import { bufferRequestStream, type PreparedBody } from './request-body.ts';
import {
  type BodyPhase,
  BodyReader,
  convertBody,
  destroyBody,
  maxContentLengthOf,
  overContentLength,
  type ResponseBodyReader,
  readArrivedBody,
  settle,
} from './response-body.ts';

/** What `config.adapter` may hold. */
export type AdapterSetting = AxiosRequestConfig['adapter'];

/** One attempt, translated: what to tell the core, and how to hand it over or drop it. */
interface Attempt {
  /** The status it got, whatever `validateStatus` thinks of it; `undefined` for a failure. */
  readonly status: number | undefined;
  /** The attempt in the core's terms, built only when its status alone does not settle the run. */
  result(): AttemptResult;
  /** The caller's outcome: the response, or throws (or rejects with) what axios would. */
  finish(): AxiosResponse | Promise<AxiosResponse>;
  /** Drops the attempt before a retry: its body drained within the cap or its connection closed. */
  discard(): void;
}

// The two attempts of the success path are classes: a literal with closures cost more there.

/** A response the adapter read itself (not in stream mode), handed over as it is. */
class AdapterResponse implements Attempt {
  declare readonly status: number;
  declare private readonly response: AxiosResponse;

  constructor(response: AxiosResponse) {
    this.status = response.status;
    this.response = response;
  }
  result(): AttemptResult {
    return statusResult(this.response);
  }
  finish(): AxiosResponse {
    return this.response;
  }
  discard(): void {
    destroyBody(this.response);
  }
}

/** A stream-mode response whose whole body had arrived: converted as the adapter would have. */
class ArrivedResponse implements Attempt {
  declare readonly status: number;
  declare private readonly response: AxiosResponse;
  declare private readonly body: Buffer;
  declare private readonly config: InternalAxiosRequestConfig;

  constructor(response: AxiosResponse, body: Buffer, config: InternalAxiosRequestConfig) {
    this.status = response.status;
    this.response = response;
    this.body = body;
    this.config = config;
  }
  result(): AttemptResult {
    return statusResult(this.response);
  }
  finish(): AxiosResponse {
    const response = this.response;
    response.data = convertBody(this.body, response, this.config);
    return settle(response);
  }
  // Read to its end: the connection is already free for the next request.
  discard(): void {}
}

interface RequestContext {
  readonly config: InternalAxiosRequestConfig;
  readonly adapter: AxiosAdapter;
  readonly adapterKind: AdapterKind;
  readonly run: RetryRun;
  readonly requestHeaders: HeaderGetter;
  readonly url: string;
  readonly data: unknown;
  /** Whether jitterbug can read this request's response bodies in stream mode (its adapter, not a `data:` URL). */
  readonly streamable: boolean;
}

const WRAPPED = Symbol('jitterbug.axios.adapter');

/** A jitterbug adapter and the setting it stands in for. */
type RetryingAdapter = AxiosAdapter & { readonly [WRAPPED]: AdapterSetting };

/** The adapter setting without jitterbug's wrapper (a config handed back to axios may carry one). */
export const unwrapAdapter = (adapter: AdapterSetting): AdapterSetting =>
  typeof adapter === 'function' && WRAPPED in adapter ? (adapter as RetryingAdapter)[WRAPPED] : adapter;

// Built on first use: the core reads request headers only for a method it would not retry anyway.
const requestHeaderGetter = (config: InternalAxiosRequestConfig): HeaderGetter => {
  let headers: AxiosHeaders | undefined;
  return (name) => {
    headers ??= AxiosHeaders.from(config.headers);
    const value = headers.get(name);
    return value === undefined || value === null || value === false ? undefined : String(value);
  };
};

/** Which of axios' adapters runs the request: the two whose body jitterbug can read in stream mode, or another. */
type AdapterKind = 'http' | 'fetch' | 'other';

// axios' http adapter, looked up once (`getAdapter('http')` throws where axios has none).
let knownHttpAdapter: AxiosAdapter | null | undefined;
const knownHttp = (): boolean => {
  if (knownHttpAdapter === undefined) {
    try {
      knownHttpAdapter = axios.getAdapter('http');
    } catch {
      knownHttpAdapter = null;
    }
  }
  return knownHttpAdapter !== null;
};
const isHttpAdapter = (adapter: AxiosAdapter): boolean => {
  knownHttp();
  // Another copy of axios (e.g. its CJS build next to the ESM one this package imports) has its own
  // function with the same name.
  return adapter === knownHttpAdapter || (adapter as { adapterName?: unknown }).adapterName === 'http';
};

// The fetch adapter is built per environment (`getFetch(config)`, cached) and carries no name: by
// identity only.
const adapterKind = (adapter: AxiosAdapter, config: InternalAxiosRequestConfig): AdapterKind => {
  if (isHttpAdapter(adapter)) return 'http';
  try {
    return adapter === axios.getAdapter('fetch', config) ? 'fetch' : 'other';
  } catch {
    // No fetch in this environment: the adapter cannot be axios' fetch adapter.
    return 'other';
  }
};

/** A reader of the stream-mode body, and the conversion the adapter itself would have made. */
const streamBody = (
  kind: AdapterKind,
): {
  reader: new (r: AxiosResponse, c: InternalAxiosRequestConfig, cap: number) => ResponseBodyReader;
  convert: (body: Buffer, r: AxiosResponse, c: InternalAxiosRequestConfig) => unknown;
} =>
  kind === 'fetch'
    ? { reader: WebBodyReader, convert: convertFetchBody }
    : { reader: BodyReader, convert: convertBody };

// axios' own isAbsoluteURL and combineURLs; `getUri` (a full config merge, ~25 µs) only for params.
const ABSOLUTE_URL = /^([a-z][a-z\d+\-.]*:)?\/\//i;
const SLASH = 47;
const requestUrl = (config: InternalAxiosRequestConfig): string => {
  if (config.params != null) return axios.getUri(config);
  // axios also takes a URL object (without a base URL).
  const url = typeof config.url === 'string' ? config.url : String(config.url ?? '');
  const { baseURL } = config;
  if (!baseURL) return url;
  // The common case without a regular expression (each one measured ~0.5 µs on the success path):
  // a path with one leading '/' is relative, and a base URL without a trailing '/' is kept whole.
  if (
    url.charCodeAt(0) === SLASH &&
    url.charCodeAt(1) !== SLASH &&
    baseURL.charCodeAt(baseURL.length - 1) !== SLASH
  ) {
    return baseURL + url;
  }
  if (ABSOLUTE_URL.test(url) && config.allowAbsoluteUrls !== false) return url;
  return url ? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}` : baseURL;
};

type AttemptField = 'data' | 'signal' | 'responseType' | 'validateStatus' | 'maxContentLength';
/** What to put back, three entries per field: its name, whether the config had it, its value. */
type SavedFields = unknown[];

/**
 * Sets a field an attempt changes on the caller's own config, remembering what to put back.
 * In place, for the attempt's duration only: axios' config is a dictionary-mode object whose copy
 * cost ~2.5 µs per request, and the response and errors then carry the caller's config as they
 * would without jitterbug. Nothing else sees the config between two attempts.
 */
const overrideField = (
  config: InternalAxiosRequestConfig,
  saved: SavedFields,
  field: AttemptField,
  value: unknown,
): void => {
  const target = config as unknown as Record<AttemptField, unknown>;
  saved.push(field, Object.hasOwn(config, field), target[field]);
  target[field] = value;
};

const restoreFields = (config: InternalAxiosRequestConfig, saved: SavedFields): void => {
  const target = config as unknown as Record<AttemptField, unknown>;
  for (let i = 0; i < saved.length; i += 3) {
    const field = saved[i] as AttemptField;
    if (saved[i + 1]) target[field] = saved[i + 2];
    else delete target[field];
  }
};

/** Sets what an attempt changes on the config: the body to send, the timer's signal, stream mode. */
const overrideAttemptFields = (
  ctx: RequestContext,
  timerSignal: AbortSignal | undefined,
  streamMode: boolean,
): SavedFields => {
  const { config } = ctx;
  const saved: SavedFields = [];
  if (ctx.data !== config.data) overrideField(config, saved, 'data', ctx.data);
  if (timerSignal) overrideField(config, saved, 'signal', timerSignal);
  if (streamMode) {
    overrideField(config, saved, 'responseType', 'stream');
    overrideField(config, saved, 'validateStatus', null);
    overrideField(config, saved, 'maxContentLength', -1);
  }
  return saved;
};

const failed = (result: AttemptResult, error: unknown): Attempt => ({
  status: 'status' in result ? result.status : undefined,
  result: () => result,
  finish: () => Promise.reject(error),
  discard: () => {},
});

/** One attempt in flight: its per-attempt timer (if any) and the caller's signal under it. */
interface InFlight {
  readonly streamMode: boolean;
  readonly timer: AttemptTimer | undefined;
  readonly callerSignal: InternalAxiosRequestConfig['signal'];
}

/** An error as the caller gets it: the attempt timer's cancel becomes the attempt timeout error. */
const caughtError = (ctx: RequestContext, sent: InFlight, error: unknown): unknown =>
  sent.timer?.fired() && isCancel(error)
    ? attemptTimeoutError(
        ctx.run.options.attemptTimeoutMs!,
        ctx.config,
        (error as { request?: unknown }).request,
      )
    : withAbortReason(error, sent.callerSignal);

/** The attempt failed with `error` (already as the caller gets it). */
const errorAttempt = (ctx: RequestContext, sent: InFlight, error: unknown): Attempt =>
  failed(errorResult(error, ctx.adapterKind === 'http', !sent.timer?.fired()), error);

/** The adapter rejected: a status `validateStatus` refused, or a failure. */
const rejectedAttempt = (ctx: RequestContext, sent: InFlight, caught: unknown): Attempt => {
  sent.timer?.dispose();
  const error = caughtError(ctx, sent, caught);
  if (isStatusRejection(error)) return failed(statusResult(error.response), error);
  return errorAttempt(ctx, sent, error);
};

/**
 * The adapter resolved. In stream mode the body is read here, within the cap, instead of by axios:
 * at once when it has all arrived (nearly every small response), else through a reader.
 */
const respondedAttempt = (
  ctx: RequestContext,
  sent: InFlight,
  response: AxiosResponse,
): Attempt | Promise<Attempt> => {
  const { config } = ctx;
  const { timer } = sent;
  if (!sent.streamMode) {
    timer?.dispose();
    return new AdapterResponse(response);
  }
  if (config.responseType === 'stream') return callerStreamAttempt(ctx, sent, response);
  if (ctx.adapterKind === 'http') {
    const arrived = readArrivedBody(response);
    if (arrived !== undefined) {
      timer?.dispose();
      const tooLong = overContentLength(arrived.length, maxContentLengthOf(config), config, response.request);
      if (tooLong) return errorAttempt(ctx, sent, tooLong);
      return new ArrivedResponse(response, arrived, config);
    }
  }
  return readBodyAttempt(ctx, sent, response);
};

/** The caller wants the stream itself: decide on the status, hand the stream over untouched. */
const callerStreamAttempt = (ctx: RequestContext, sent: InFlight, response: AxiosResponse): Attempt => ({
  status: response.status,
  result: () => statusResult(response),
  finish: () => {
    sent.timer?.dispose();
    return settle(response);
  },
  discard: () => {
    const reader = new (streamBody(ctx.adapterKind).reader)(
      response,
      ctx.config,
      ctx.run.options.discardBodyMaxBytes,
    );
    reader.next().then(
      () => {
        reader.discard();
        sent.timer?.dispose();
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
): Promise<Attempt> => {
  const { config } = ctx;
  const { timer } = sent;
  const body = streamBody(ctx.adapterKind);
  const reader = new body.reader(response, config, ctx.run.options.discardBodyMaxBytes);
  const phase = await reader.next();
  if (phase.kind === 'failed') {
    timer?.dispose();
    return errorAttempt(ctx, sent, caughtError(ctx, sent, phase.error));
  }
  return {
    status: response.status,
    result: () => statusResult(response),
    finish: async () => {
      let end: BodyPhase = phase;
      if (end.kind === 'over-cap') {
        reader.readToEnd();
        end = await reader.next();
      }
      timer?.dispose();
      if (end.kind === 'failed') throw caughtError(ctx, sent, end.error);
      if (end.kind === 'ended') response.data = await body.convert(end.body, response, config);
      return settle(response);
    },
    discard: () => {
      timer?.dispose();
      reader.discard();
    },
  };
};

/**
 * Attaches the run's summary to an error the caller gets and to its config. A response gets it
 * through its config only (`getRetryInfo` reads a response through its `config`): one stamp on the
 * success path instead of two.
 */
const attachInfo = (run: RetryRun, target: unknown): void => {
  if (!run.summary) return;
  setRetryInfo(target, run.summary);
  const config = (target as { config?: unknown } | null)?.config;
  if (config) setRetryInfo(config, run.summary);
};

const attachResponseInfo = (
  run: RetryRun,
  response: AxiosResponse,
  config: InternalAxiosRequestConfig,
): void => {
  if (!run.summary) return;
  setRetryInfo(config, run.summary);
  // A custom adapter may answer without the request's config (axios adds none): then the response
  // gets the summary itself.
  if (response.config !== config) setRetryInfo(response, run.summary);
};

const waitBeforeRetry = async (ctx: RequestContext, delayMs: number): Promise<void> => {
  const cancellation = callerCancellation(ctx.config);
  try {
    await ctx.run.wait(delayMs, cancellation?.signal);
  } finally {
    cancellation?.dispose();
  }
};

const runRequest = async (ctx: RequestContext): Promise<AxiosResponse> => {
  const { run } = ctx;
  for (;;) {
    try {
      throwIfCancelled(ctx.config);
    } catch (reason) {
      run.abort(reason);
      attachInfo(run, reason);
      throw reason;
    }
    // Only an attempt that could be retried is read here; any other is axios' own, untouched.
    const streamMode = ctx.streamable && attemptMayRetry(run, ctx.requestHeaders);
    const { config } = ctx;
    const timeoutMs = run.options.attemptTimeoutMs;
    // The caller's signal: while the attempt runs, config.signal is the attempt timer's.
    const callerSignal = config.signal;
    const timer = timeoutMs === undefined ? undefined : startAttemptTimer(timeoutMs, callerSignal);
    const sent: InFlight = { streamMode, timer, callerSignal };
    const saved = overrideAttemptFields(ctx, timer?.signal, streamMode);
    let attempt: Attempt | Promise<Attempt>;
    try {
      run.beforeAttempt();
      const response = await ctx.adapter(config);
      restoreFields(config, saved);
      attempt = respondedAttempt(ctx, sent, response);
    } catch (caught) {
      // Putting the fields back twice (if reading the response threw) leaves them as they were.
      restoreFields(config, saved);
      attempt = rejectedAttempt(ctx, sent, caught);
    }
    if (attempt instanceof Promise) attempt = await attempt;
    let decision: Decision;
    try {
      const { status } = attempt;
      const pending = (status === undefined ? undefined : run.settle(status)) ?? run.next(attempt.result());
      decision = pending instanceof Promise ? await pending : pending;
    } catch (hookError) {
      attempt.discard();
      throw hookError;
    }
    if (!decision.retry) {
      try {
        const finished = attempt.finish();
        const response = finished instanceof Promise ? await finished : finished;
        attachResponseInfo(run, response, ctx.config);
        return response;
      } catch (error) {
        attachInfo(run, error);
        throw error;
      }
    }
    attempt.discard();
    try {
      await waitBeforeRetry(ctx, decision.delayMs);
    } catch (reason) {
      attachInfo(run, reason);
      throw reason;
    }
  }
};

/** Buffers a stream request body that fits `bufferStreamBytes`, so that it can be sent again. */
const prepareStreamBody = async (ctx: RequestContext): Promise<AxiosResponse> => {
  const { config, run } = ctx;
  let prepared: PreparedBody;
  const cancellation = callerCancellation(config);
  try {
    prepared = await bufferRequestStream(
      ctx.data as AsyncIterable<unknown>,
      run.options.bufferStreamBytes,
      cancellation?.signal,
    );
  } catch (cause) {
    if (cancellation?.signal.aborted) {
      // The caller's cancellation, as axios rejects with it; nothing was sent.
      run.abort(cause);
      attachInfo(run, cause);
      throw cause;
    }
    // What axios rejects with when a body stream fails during the upload.
    const error = AxiosError.from(cause as Error, undefined, config);
    run.next({ error });
    attachInfo(run, error);
    throw error;
  } finally {
    cancellation?.dispose();
  }
  if (prepared.replayable) run.body = 'replayable';
  return runRequest({ ...ctx, data: prepared.data });
};

// A copy for each request's config, as axios' own config merge gives each request its own array.
const settingCopy = <T extends AdapterSetting>(setting: T): T =>
  Array.isArray(setting) ? ([...setting] as T) : setting;

/**
 * Makes the adapter that runs the real one (the `adapter` setting it stands in for, or axios'
 * default) as many times as the policy decides. One is made per setting, not per request: the
 * request's own state lives in its {@link RequestContext}.
 */
const retryingAdapter = (policy: RetryPolicy, setting: AdapterSetting): AxiosAdapter => {
  // `adapter: 'http'` always names the same function: looked up once, not on every request.
  const http = setting === 'http' && knownHttp() ? knownHttpAdapter : undefined;
  const adapter = ((config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    try {
      // The caller's response.config shows the adapter setting it would show without jitterbug.
      if (setting === undefined) delete config.adapter;
      else config.adapter = settingCopy(setting);
      const real = http ?? axios.getAdapter(setting ?? axios.defaults.adapter, config);
      const requestHeaders = requestHeaderGetter(config);
      const url = requestUrl(config);
      const data: unknown = config.data;
      const run = policy.begin({
        method: config.method ?? 'get',
        url,
        headers: requestHeaders,
        body: bodyKind(data),
      });
      const kind = http ? 'http' : adapterKind(real, config);
      const ctx: RequestContext = {
        config,
        adapter: real,
        adapterKind: kind,
        run,
        requestHeaders,
        url,
        data,
        streamable: kind !== 'other' && !url.startsWith('data:'),
      };
      if (
        run.body === 'stream' &&
        run.options.bufferStreamBytes > 0 &&
        mayRetry(run.options, run.method, requestHeaders)
      ) {
        return prepareStreamBody(ctx);
      }
      return runRequest(ctx);
    } catch (error) {
      return Promise.reject(error);
    }
  }) as AxiosAdapter as RetryingAdapter;
  Object.defineProperty(adapter, WRAPPED, { value: setting });
  return adapter as AxiosAdapter;
};

/**
 * The retrying adapter for each `adapter` setting a policy's requests carry, made on first use.
 * Settings are compared by content: axios' config merge copies an array setting for every request.
 */
export const retryingAdapters = (policy: RetryPolicy): ((setting: AdapterSetting) => AxiosAdapter) => {
  const made: { setting: AdapterSetting; adapter: AxiosAdapter }[] = [];
  const same = (a: AdapterSetting, b: AdapterSetting): boolean =>
    a === b ||
    (Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      (a as unknown[]).every((item, i) => item === (b as unknown[])[i]));
  return (setting) => {
    for (const entry of made) if (same(entry.setting, setting)) return entry.adapter;
    // Its own copy: the request's array stays the request's.
    const kept = settingCopy(setting);
    const adapter = retryingAdapter(policy, kept);
    // A program that makes a new adapter function per request must not grow this list without end.
    if (made.length >= 8) made.shift();
    made.push({ setting: kept, adapter });
    return adapter;
  };
};
