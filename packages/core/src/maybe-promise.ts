/**
 * Values that may be promises (a hook's result, a client's step), handled without making one when
 * they are not. A leaf: the sequence, the attempt's edits and the drivers share it.
 */

/** Does nothing: the handler of a promise whose outcome is dropped. */
export const nothing = (): undefined => undefined;

/** Whether `value` is a thenable (a promise, or anything with a `then` method). */
export const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** `f(value)`, after `value` settles when it is a thenable (then as a real `Promise`). */
export const after = <T, U>(value: T | PromiseLike<T>, f: (value: T) => U | Promise<U>): U | Promise<U> =>
  isThenable(value) ? Promise.resolve(value).then(f) : f(value as T);

/** A finished run's `onFinish` promise, if any, with its rejection dropped: the caller's error wins. */
export const quietly = (pending: void | Promise<void>): Promise<void> | undefined =>
  pending ? pending.catch(nothing) : undefined;
