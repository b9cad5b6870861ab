/**
 * The axios transport: how the core's attempt loop sends an axios request through the real adapter.
 * It only sends, translates and hands over; every decision is the run's. A hook of the caller's that
 * throws or rejects fails the request with its error; the caller's cancel ends a wait or a hold at
 * once.
 */
import type { HeaderGetter } from '@jitterbug/core';
import {
  type AttemptResult,
  attemptMayRetry,
  maySendAgain,
  type RetryRun,
  setRetryInfo,
  type Transport,
} from '@jitterbug/core/adapter';
import type { AxiosAdapter, AxiosResponse, InternalAxiosRequestConfig } from 'axios';
import { bufferRequestStream } from '#platform';
import { callerCancellation, cancellation, type Linked } from './abort.ts';
import type { Attempt } from './attempt.ts';
import { AxiosError, AxiosHeaders } from './axios-values.ts';
import { type RequestContext, type StreamMode, sendCopy } from './in-flight.ts';
import { requestUrl } from './request-url.ts';

/**
 * One request as the attempt loop sends it (`runAttempts(run, transport)`: it resolves or rejects
 * with what the caller gets, carrying the summary), and its own context for the attempts: one object
 * per request. `data` is the body to send, `streamMode` how a response's body is read.
 */
export class AxiosTransport implements Transport<Attempt, AxiosResponse>, RequestContext {
  declare readonly config: InternalAxiosRequestConfig;
  declare readonly adapter: AxiosAdapter;
  declare readonly run: RetryRun;
  declare readonly headers: HeaderGetter;
  declare data: unknown;
  declare readonly streamMode: StreamMode | undefined;
  /** The caller's cancellation as one signal, made on first use (a wait, a hold, a read-ahead). */
  declare private linked: Linked | undefined;

  constructor(
    config: InternalAxiosRequestConfig,
    adapter: AxiosAdapter,
    run: RetryRun,
    headers: HeaderGetter,
    data: unknown,
    streamMode: StreamMode | undefined,
  ) {
    this.config = config;
    this.adapter = adapter;
    this.run = run;
    this.headers = headers;
    this.data = data;
    this.streamMode = streamMode;
    this.linked = undefined;
  }

  signal(): AbortSignal | undefined {
    this.linked ??= callerCancellation(this.config);
    return this.linked?.signal;
  }

  cancellation(): unknown {
    return cancellation(this.config);
  }

  /** With `bodyBuffering`, buffers a stream request body that fits, so that it can be sent again. */
  prepare(): Promise<void> | undefined {
    const { run, config } = this;
    const buffering = run.options.feature.bodyBuffering;
    if (run.body !== 'stream' || !buffering || !maySendAgain(run.options, run.method, this.headers)) {
      return undefined;
    }
    const signal = this.signal();
    return bufferRequestStream(this.data as AsyncIterable<unknown>, buffering, signal).then(
      (data) => {
        // Bytes are sent again as they are; a longer body's stream (what was read, then the rest) once.
        if (data instanceof Uint8Array) run.body = 'replayable';
        this.data = data;
      },
      (cause: unknown) => {
        // The caller's cancellation, as axios rejects with it; else what axios rejects with when a
        // body stream fails during the upload. Nothing was sent.
        throw signal?.aborted ? cause : AxiosError.from(cause as Error, undefined, config);
      },
    );
  }

  /** Only an attempt that could be retried is read in stream mode; any other is axios' own, untouched. */
  private attemptMode(): StreamMode | undefined {
    const mode = this.streamMode;
    return mode && attemptMayRetry(this.run, this.headers) ? mode : undefined;
  }

  // An attempt read in stream mode is sent once, not hedged.
  sendOnce(): boolean {
    return this.attemptMode() !== undefined;
  }

  send(cancel?: AbortSignal): Promise<Attempt> {
    return cancel ? sendCopy(this, undefined, cancel) : sendCopy(this, this.attemptMode());
  }

  /** The request's headers as the next attempt sends them (values as axios would write them). */
  requestHeaders(): Headers {
    const headers = new Headers();
    const fields = AxiosHeaders.from(this.config.headers).toJSON(true) as Record<string, unknown>;
    for (const name of Object.keys(fields)) {
      const value = fields[name];
      if (value != null && value !== false) headers.set(name, String(value));
    }
    return headers;
  }

  requestUrl(): string {
    return requestUrl(this.config);
  }

  /**
   * The next attempts go to `url` with `headers`: set on the caller's config itself (in place, so that
   * every reader of its headers sees them), the URL whole (no `baseURL` or `params` to add again).
   */
  edit(url: string, headers: Headers): void {
    const { config } = this;
    const own = AxiosHeaders.from(config.headers);
    own.clear();
    headers.forEach((value, name) => {
      own.set(name, value);
    });
    config.headers = own;
    if (url !== requestUrl(config)) {
      config.url = url;
      config.baseURL = undefined as unknown as string;
      config.params = undefined;
    }
  }

  status(attempt: Attempt): number | undefined {
    return attempt.status;
  }

  result(attempt: Attempt): AttemptResult | Promise<AttemptResult> {
    return attempt.result();
  }

  deliver(attempt: Attempt): AxiosResponse | Promise<AxiosResponse> {
    const finished = attempt.finish();
    return finished instanceof Promise ? finished.then(this.tagResponse) : this.tagResponse(finished);
  }

  /**
   * A response gets the summary through its config only (`getRetryInfo` reads a response through
   * its `config`): one stamp on the success path instead of two. A custom adapter may answer without
   * the request's config (axios adds none): then the response gets the summary itself.
   */
  private readonly tagResponse = (response: AxiosResponse): AxiosResponse => {
    const { run, config } = this;
    const summary = run.summary;
    if (summary) {
      setRetryInfo(config, summary);
      if (response.config !== config) setRetryInfo(response, summary);
    }
    return response;
  };

  discard(attempt: Attempt): void {
    attempt.discard();
  }

  /** An error the caller gets carries the summary, and so does its config. */
  tag(error: unknown): void {
    const summary = this.run.summary;
    if (!summary) return;
    setRetryInfo(error, summary);
    const config = (error as { config?: unknown } | null)?.config;
    if (config) setRetryInfo(config, summary);
  }

  close(): void {
    this.linked?.dispose();
  }
}
