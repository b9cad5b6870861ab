/**
 * ky's own errors for what happened inside its `fetch`: the `TimeoutError` of an attempt that timed
 * out, and, for the user's `beforeRetry` hooks, the `HTTPError` (with `data` read as ky 2 reads it)
 * or `NetworkError` of the attempt about to be retried.
 */
import type { NextAttempt } from '@jitterbug/core';
import { isRequestInput } from '@jitterbug/fetch/engine';
import type { NormalizedOptions } from 'ky';
import * as kyModule from 'ky';
import type { CallState, LastAttempt } from './call-state.ts';
import type { KyInitOptions } from './hook-args.ts';

/** The `Request` an attempt sent, for an error's `request` (ky builds its messages from it). */
export const requestOf = (input: Request | URL | string, method: string): Request =>
  isRequestInput(input) ? input : new Request(input, { method });

const isAttemptTimeout = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === 'ERR_JITTERBUG_ATTEMPT_TIMEOUT';

/** ky's `TimeoutError` for jitterbug's attempt timeout (`cause`: jitterbug's error); else the error. */
export const asKyTimeout = (error: unknown, request: () => Request): unknown => {
  if (!isAttemptTimeout(error)) return error;
  const timeout = new kyModule.TimeoutError(request());
  Object.defineProperty(timeout, 'cause', { value: error, writable: true, configurable: true });
  return timeout;
};

/** `operation`, or `undefined` when it takes longer than `ms`. */
const within = <T>(
  ms: number,
  operation: (expired: Promise<undefined>) => Promise<T>,
): Promise<T | undefined> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  // The timer calls `resolve` with no argument: `expired` resolves with `undefined`.
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve as () => void, ms);
  });
  return Promise.race([operation(expired), expired]).finally(() => clearTimeout(timer));
};

const decoderFor = (contentType: string): TextDecoder => {
  const charset = /;\s*charset\s*=\s*(?:"([^"]+)"|([^;,\s]+))/i.exec(contentType);
  try {
    return new TextDecoder(charset?.[1] ?? charset?.[2]);
  } catch {
    return new TextDecoder();
  }
};

/**
 * The body as text, as ky 2 reads an error body (decoded by the charset `contentType` names):
 * `undefined` past 10 MiB, on a failure or past `ms`.
 */
const readText = (response: Response, contentType: string, ms: number): Promise<string | undefined> =>
  within(ms, async (expired) => {
    const reader = response.body?.getReader();
    if (!reader) return response.text().catch(() => undefined);
    const cancel = (): void => void reader.cancel().catch(() => undefined);
    void expired.then(cancel);
    const decoder = decoderFor(contentType);
    let text = '';
    let size = 0;
    try {
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        size += read.value.byteLength;
        // ky 2 reads at most 10 MiB of an error body. (Its limits are written where they are read:
        // esbuild keeps a module constant as a variable of its own in a bundle.)
        if (size > 10 * 2 ** 20) {
          cancel();
          return undefined;
        }
        text += decoder.decode(read.value, { stream: true });
      }
    } catch {
      return undefined;
    }
    return text + decoder.decode();
  });

/** `HTTPError.data` as ky 2 fills it: JSON parsed (with `parseJson` if given), else the text. */
const errorData = async (
  response: Response,
  request: Request,
  parseJson: KyInitOptions['parseJson'],
  ms: number,
): Promise<unknown> => {
  const contentType = response.headers.get('content-type') ?? '';
  const text = await readText(response, contentType, ms);
  if (!text) return undefined;
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  // A JSON media type, as ky 2 tells it: `application/json`, `…+json`, `…-json`, `….json`.
  if (!/\/(?:.*[.+-])?json$/.test(mediaType)) return text;
  return within(ms, async () => {
    try {
      return await (parseJson ? parseJson(text, { request, response }) : JSON.parse(text));
    } catch {
      return undefined;
    }
  });
};

/**
 * The error ky's own retry would show `beforeRetry` hooks for the attempt just failed: its
 * `HTTPError` (response, request, options, `data`), its `TimeoutError`, or its `NetworkError` of
 * whatever else failed (jitterbug retries only network failures and timeouts without a response).
 */
export const kyErrorFor = async (state: CallState, next: NextAttempt, method: string): Promise<unknown> => {
  const last: LastAttempt | undefined = state.last;
  const request = requestOf(last?.input ?? next.url, method);
  const response = last?.copy ?? last?.response;
  if (next.status === undefined || !response) {
    const failure = asKyTimeout(next.error, () => request);
    if (failure !== next.error || !kyModule.NetworkError) return failure;
    return new kyModule.NetworkError(request, { cause: next.error as Error });
  }
  const error = new kyModule.HTTPError(response, request, state.options as unknown as NormalizedOptions);
  if (last?.copy) {
    const parseJson = state.kyOptions?.parseJson;
    // Without a timeout, ky 2 bounds the read at 10 s.
    error.data = await errorData(last.copy, request, parseJson, state.timeLeftMs() ?? 10_000);
  }
  return error;
};
