/**
 * What the store in a Worker and the object say to each other: one `POST` per operation, its name
 * and arguments as JSON; the object answers its result and its clock, or an error with a status.
 */

/** The request's body. */
export interface RunRequest {
  /**
   * The operation's `name` (`budget.lease`): the object runs its own copy of the operation (the
   * core's `STORE_OPERATIONS`), never code sent to it.
   */
  readonly operation: string;
  /** Its arguments: finite numbers within the core's `NUMBER_LIMIT` (the store refuses others). */
  readonly args: readonly number[];
}

/** The object's answer (status 200). */
export interface RunAnswer {
  /** The operation's result (`StoreOperation.results` numbers). */
  readonly result: readonly number[];
  /** The object's clock when the operation ran, in ms since the epoch: the reply's `atMs`. */
  readonly atMs: number;
}

/** The URL the store posts to; the object ignores it (a stub's fetch needs one). */
export const RUN_URL = 'https://jitterbug-store.invalid/run';
