/**
 * What the Node side and the page exchange for the nginx browser scenarios: a job (one client,
 * many requests sent at once, each with its own URL) and what each request ended with. Plain
 * data: it crosses `page.evaluate` as JSON.
 */
import type { RequestBody } from '../runtimes/in-runtime/client.ts';
import type { CallRecord, ClientName, ErrorShape, InfoRecord, RetryRecord } from '../runtimes/protocol.ts';

export type { ClientName };

/** One request of a job. */
export interface PageRequest {
  readonly method: string;
  /** An absolute URL, unique within the job (the retries are told apart by it). */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: RequestBody;
}

/** Policy options that cross as JSON (the page adds its recording `onRetry`). */
export interface PageOptions {
  readonly maxAttempts?: number;
  readonly budget?: false | { readonly ratio?: number; readonly burst?: number };
}

export interface PageJob {
  readonly client: ClientName;
  readonly requests: readonly PageRequest[];
  readonly options?: PageOptions;
  /** ky only: `kyRetry` with `forcedRetries`, so that ky's own retry limit is above 0 and ky clones each request. */
  readonly kyForcedRetries?: boolean;
  /**
   * A request not settled this long after the job began counts as pending; it is then aborted
   * through its signal, so that the next job starts clean.
   */
  readonly pendingAfterMs: number;
}

/** `getRetryInfo()`'s summary, as JSON: the runtime matrix's record, and how many delays were unread. */
export interface PageInfo extends InfoRecord {
  readonly serverDelaysUnread: number;
}

/** One `onRetry` event: the runtime matrix's record, and whether the server's delay was unread. */
export interface PageRetry extends RetryRecord {
  readonly serverDelayUnread: boolean;
}

/** What one request ended with: `pending` when it had not settled in `pendingAfterMs`. */
export interface PageOutcome {
  readonly kind: CallRecord['kind'] | 'pending';
  readonly status: number | null;
  readonly error: ErrorShape | null;
  readonly info: PageInfo | null;
  readonly retries: readonly PageRetry[];
  /** A pending request still unsettled after its abort (its client ignored the signal). */
  readonly stuck?: true;
}

export interface PageReply {
  readonly outcomes: readonly PageOutcome[];
  /** The job's wall time in the page, ms. */
  readonly ms: number;
}
