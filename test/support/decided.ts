/** A decision a run made without a promise (every hook synchronous): fails the test otherwise. */
export const decided = <T>(value: T | Promise<T>): T => {
  if (value instanceof Promise) throw new Error('expected a synchronous decision');
  return value;
};
