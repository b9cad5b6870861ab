/** What the Node side and the page of the offline tests say to each other (JSON only). */
import type { CallRecord, RetryRecord } from '../runtimes/protocol.ts';

export type OfflineClient = 'fetch' | 'ky' | 'axios-xhr' | 'axios-fetch';

/** A request the page sends. */
export interface OfflineJob {
  readonly client: OfflineClient;
  readonly method: string;
  readonly url: string;
  readonly body?: string;
  /** The policy's options over the page's (no jitter, a 1–5 ms backoff). */
  readonly options?: { readonly maxAttempts?: number; readonly deadlineMs?: number };
}

/** What became of it so far. */
export interface OfflineCall {
  /** Each retry's `onRetry` event, as it came. */
  readonly retries: RetryRecord[];
  /** How it ended, once it did. */
  ended: CallRecord | null;
  /** It ended with the client's error for the page's abort. */
  aborted?: boolean;
}

/** `globalThis.offlineTest` in the page. */
export interface OfflineTest {
  /** Starts the request; its id. */
  start(job: OfflineJob): number;
  call(id: number): OfflineCall;
  /** Aborts it with the caller's signal. */
  abort(id: number): void;
  /** Resolves once it ended. */
  ended(id: number): Promise<OfflineCall>;
  /** `navigator.onLine`. */
  online(): boolean;
}
