/**
 * What the store in a Worker and the object say to each other: one `POST` per operation, its name
 * and arguments as JSON; the object answers its result and its clock, or an error with a status.
 */

/** The request's body. */
export interface RunRequest {
  readonly operation: string;
  readonly args: readonly number[];
}

/** The object's answer (status 200). */
export interface RunAnswer {
  readonly result: readonly number[];
  readonly atMs: number;
}

/** The URL the store posts to; the object ignores it (a stub's fetch needs one). */
export const RUN_URL = 'https://jitterbug-store.invalid/run';
