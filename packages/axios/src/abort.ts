/**
 * The caller's cancellation (an `AbortSignal` or a legacy `CancelToken`) as one signal for the
 * backoff wait and a hold, and as the reason axios rejects with.
 */
import type { InternalAxiosRequestConfig } from 'axios';
import { CanceledError, isCancel } from './axios-values.ts';

type GenericSignal = NonNullable<InternalAxiosRequestConfig['signal']>;

/** A signal and the clean-up of what feeds it. */
export interface Linked {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * Gives an axios `CanceledError` the caller's abort reason as its `cause` (axios itself drops it),
 * non-enumerable like a native `cause`. Other errors and errors with a cause are left alone.
 */
export const withAbortReason = <T>(error: T, signal: GenericSignal | undefined): T => {
  const reason = (signal as { reason?: unknown } | undefined)?.reason;
  if (!signal?.aborted || reason === undefined || !isCancel(error)) return error;
  if ((error as { cause?: unknown }).cause !== undefined) return error;
  Object.defineProperty(error, 'cause', { value: reason, writable: true, configurable: true });
  return error;
};

/** The `CanceledError` axios rejects with for an aborted signal, carrying the signal's reason. */
const canceledError = (config: InternalAxiosRequestConfig): CanceledError<unknown> =>
  withAbortReason(new CanceledError(undefined, config), config.signal);

/**
 * A signal that aborts when the caller cancels, with the reason axios rejects with for that
 * cancel: a `CanceledError` for a signal (axios never hands out the signal's own reason, so
 * jitterbug puts it in `cause`), the token's `Cancel` for a `CancelToken`. `undefined` when the
 * request cannot be cancelled.
 */
export const callerCancellation = (config: InternalAxiosRequestConfig): Linked | undefined => {
  const { signal, cancelToken } = config;
  if (!signal && !cancelToken) return undefined;
  const controller = new AbortController();
  const onCancel = (reason: unknown): void => controller.abort(reason);
  const onAbort = (): void => controller.abort(canceledError(config));
  // A token already cancelled calls `onCancel` at once: the controller keeps that reason, as a
  // second abort changes nothing.
  cancelToken?.subscribe(onCancel);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener?.('abort', onAbort);
  return {
    signal: controller.signal,
    dispose: () => {
      cancelToken?.unsubscribe(onCancel);
      signal?.removeEventListener?.('abort', onAbort);
    },
  };
};

/**
 * What axios' own `throwIfCancellationRequested` throws before it calls an adapter, when the caller
 * cancelled: the token's reason, or a `CanceledError` for an aborted signal; else `undefined`.
 * axios checks only once, before the first attempt; jitterbug before every one (a cancelled request
 * must not be sent again).
 */
export const cancellation = (config: InternalAxiosRequestConfig): unknown =>
  config.cancelToken?.reason ?? (config.signal?.aborted ? canceledError(config) : undefined);
