/**
 * The adapter that jitterbug puts in front of the real one for one request. axios calls it after
 * the request interceptors and `transformRequest`, and hands its result to `transformResponse` and
 * the response interceptors, so retries happen below everything the user plugged in: each of those
 * runs once per request, as without retries.
 */
import {
  type AttemptResult,
  attemptMayRetry,
  bodyKind,
  type Decision,
  type HeaderGetter,
  mayRetry,
  type RetryPolicy,
  type RetryRun,
  setRetryInfo,
} from '@jitterbug/core';
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
  type ResponseBodyReader,
  settle,
} from './response-body.ts';

/** What `config.adapter` may hold. */
export type AdapterSetting = AxiosRequestConfig['adapter'];

/** One attempt, translated: what to tell the core, and how to hand it over or drop it. */
interface Attempt {
  readonly result: AttemptResult;
  /** The caller's outcome: resolves with the response or throws what axios would. */
  finish(): Promise<AxiosResponse>;
  /** Drops the attempt before a retry: its body drained within the cap or its connection closed. */
  discard(): void;
}

interface RequestContext {
  readonly config: InternalAxiosRequestConfig;
  readonly adapter: AxiosAdapter;
  readonly adapterKind: AdapterKind;
  readonly run: RetryRun;
  readonly requestHeaders: HeaderGetter;
  readonly url: string;
  readonly data: unknown;
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

// The http adapter by identity or by the name axios gives it (another copy of axios, e.g. its CJS
// build next to the ESM one this package imports, has its own function). The fetch adapter is
// built per environment (`getFetch(config)`, cached) and carries no name: by identity only.
const adapterKind = (adapter: AxiosAdapter, config: InternalAxiosRequestConfig): AdapterKind => {
  if (adapter === axios.getAdapter('http') || (adapter as { adapterName?: unknown }).adapterName === 'http') {
    return 'http';
  }
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
const requestUrl = (config: InternalAxiosRequestConfig): string => {
  if (config.params != null) return axios.getUri(config);
  const url = config.url ?? '';
  const { baseURL } = config;
  if (!baseURL || (ABSOLUTE_URL.test(url) && config.allowAbsoluteUrls !== false)) return url;
  return url ? `${baseURL.replace(/\/?\/$/, '')}/${url.replace(/^\/+/, '')}` : baseURL;
};

type AttemptField = 'data' | 'signal' | 'responseType' | 'validateStatus' | 'maxContentLength';
type SavedFields = [field: AttemptField, present: boolean, value: unknown][];

/**
 * Sets the fields an attempt changes on the caller's own config and returns what to put back.
 * In place, for the attempt's duration only: axios' config is a dictionary-mode object whose copy
 * cost ~2.5 µs per request, and the response and errors then carry the caller's config as they
 * would without jitterbug. Nothing else sees the config between two attempts.
 */
const overrideFields = (
  config: InternalAxiosRequestConfig,
  fields: Partial<Record<AttemptField, unknown>>,
): SavedFields => {
  const saved: SavedFields = [];
  const target = config as unknown as Record<AttemptField, unknown>;
  for (const field of Object.keys(fields) as AttemptField[]) {
    saved.push([field, Object.hasOwn(config, field), target[field]]);
    target[field] = fields[field];
  }
  return saved;
};

const restoreFields = (config: InternalAxiosRequestConfig, saved: SavedFields): void => {
  const target = config as unknown as Record<AttemptField, unknown>;
  for (const [field, present, value] of saved) {
    if (present) target[field] = value;
    else delete target[field];
  }
};

/** What an attempt changes on the config: the body to send, the timer's signal, stream mode. */
const attemptFields = (
  ctx: RequestContext,
  timerSignal: AbortSignal | undefined,
  streamMode: boolean,
): Partial<Record<AttemptField, unknown>> => {
  const fields: Partial<Record<AttemptField, unknown>> = {};
  if (ctx.data !== ctx.config.data) fields.data = ctx.data;
  if (timerSignal) fields.signal = timerSignal;
  if (streamMode) {
    fields.responseType = 'stream';
    fields.validateStatus = null;
    fields.maxContentLength = -1;
  }
  return fields;
};

const failed = (result: AttemptResult, error: unknown): Attempt => ({
  result,
  finish: () => Promise.reject(error),
  discard: () => {},
});

/** Sends one attempt. `streamMode`: the body is read here, within the cap, instead of by axios. */
const sendAttempt = async (ctx: RequestContext, streamMode: boolean): Promise<Attempt> => {
  const { config, run } = ctx;
  const httpAdapter = ctx.adapterKind === 'http';
  const timeoutMs = run.options.attemptTimeoutMs;
  // The caller's signal: while the attempt runs, config.signal is the attempt timer's.
  const callerSignal = config.signal;
  const timer = timeoutMs === undefined ? undefined : startAttemptTimer(timeoutMs, callerSignal);
  const asCaughtError = (error: unknown): unknown =>
    timer?.fired() && isCancel(error)
      ? attemptTimeoutError(timeoutMs!, config, (error as { request?: unknown }).request)
      : withAbortReason(error, callerSignal);
  const cancelledByCaller = (): boolean => !timer?.fired();

  let response: AxiosResponse;
  const saved = overrideFields(config, attemptFields(ctx, timer?.signal, streamMode));
  try {
    response = await ctx.adapter(config);
  } catch (caught) {
    timer?.dispose();
    const error = asCaughtError(caught);
    if (isStatusRejection(error)) return failed(statusResult(error.response), error);
    return failed(errorResult(error, httpAdapter, cancelledByCaller()), error);
  } finally {
    restoreFields(config, saved);
  }

  if (!streamMode) {
    timer?.dispose();
    return {
      result: statusResult(response),
      finish: async () => response,
      discard: () => destroyBody(response),
    };
  }

  if (config.responseType === 'stream') {
    // The caller wants the stream itself: decide on the status, hand the stream over untouched.
    return {
      result: statusResult(response),
      finish: async () => {
        timer?.dispose();
        return settle(response);
      },
      discard: () => {
        const reader = new (streamBody(ctx.adapterKind).reader)(
          response,
          config,
          run.options.discardBodyMaxBytes,
        );
        reader.next().then(
          () => {
            reader.discard();
            timer?.dispose();
          },
          () => {},
        );
      },
    };
  }

  const body = streamBody(ctx.adapterKind);
  const reader = new body.reader(response, config, run.options.discardBodyMaxBytes);
  const phase = await reader.next();
  if (phase.kind === 'failed') {
    timer?.dispose();
    const error = asCaughtError(phase.error);
    return failed(errorResult(error, httpAdapter, cancelledByCaller()), error);
  }
  return {
    result: statusResult(response),
    finish: async () => {
      let end: BodyPhase = phase;
      if (end.kind === 'over-cap') {
        reader.readToEnd();
        end = await reader.next();
      }
      timer?.dispose();
      if (end.kind === 'failed') throw asCaughtError(end.error);
      if (end.kind === 'ended') response.data = await body.convert(end.body, response, config);
      return settle(response);
    },
    discard: () => {
      timer?.dispose();
      reader.discard();
    },
  };
};

const attachInfo = (run: RetryRun, target: unknown): void => {
  if (!run.summary) return;
  setRetryInfo(target, run.summary);
  const config = (target as { config?: unknown } | null)?.config;
  if (config) setRetryInfo(config, run.summary);
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
    const streamMode =
      ctx.adapterKind !== 'other' && attemptMayRetry(run, ctx.requestHeaders) && !ctx.url.startsWith('data:');
    const attempt = await sendAttempt(ctx, streamMode);
    let decision: Decision;
    try {
      decision = run.next(attempt.result);
    } catch (hookError) {
      attempt.discard();
      throw hookError;
    }
    if (!decision.retry) {
      try {
        const response = await attempt.finish();
        attachInfo(run, response);
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

/**
 * Makes the adapter for one request: it runs the real adapter (the caller's `adapter` setting, or
 * axios' default) as many times as the policy decides.
 */
export const retryingAdapter = (policy: RetryPolicy, setting: AdapterSetting): AxiosAdapter => {
  const adapter = (async (config: InternalAxiosRequestConfig): Promise<AxiosResponse> => {
    // The caller's response.config shows the adapter setting it would show without jitterbug.
    if (setting === undefined) delete config.adapter;
    else config.adapter = setting;
    const real = axios.getAdapter(setting ?? axios.defaults.adapter, config);
    const requestHeaders = requestHeaderGetter(config);
    const url = requestUrl(config);
    const run = policy.begin({
      method: config.method ?? 'get',
      url,
      headers: requestHeaders,
      body: bodyKind(config.data),
    });
    let data: unknown = config.data;
    const streamLimit = run.options.bufferStreamBytes;
    if (run.body === 'stream' && streamLimit > 0 && mayRetry(run.options, run.method, requestHeaders)) {
      let prepared: PreparedBody;
      const cancellation = callerCancellation(config);
      try {
        prepared = await bufferRequestStream(
          data as AsyncIterable<unknown>,
          streamLimit,
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
      data = prepared.data;
      if (prepared.replayable) run.body = 'replayable';
    }
    return runRequest({
      config,
      adapter: real,
      adapterKind: adapterKind(real, config),
      run,
      requestHeaders,
      url,
      data,
    });
  }) as AxiosAdapter as RetryingAdapter;
  Object.defineProperty(adapter, WRAPPED, { value: setting });
  return adapter as AxiosAdapter;
};
