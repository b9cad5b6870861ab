/**
 * One fetch call's request as the core sees it (method, URL, headers, how its body replays) and what
 * each of its attempts sends; `engine.ts` sends them. The caller's body is classified before fetch
 * turns it into a stream: a string, bytes, `Blob`, `FormData` or `URLSearchParams` in `init.body` is
 * sent again as it is; a `ReadableStream` (or an async iterable) only once, unless it was read into
 * memory first.
 */
import type { CallOverrides, HeaderGetter } from '@jitterbug/core';
import type { BodyKind } from '@jitterbug/core/adapter';

/** What `fetch` takes as its first argument. */
export type FetchInput = string | URL | Request;

/** `fetch`'s options, with the call's own retry overrides (`false`: no retries for this call). */
export type FetchInit = RequestInit & {
  /** This call's overrides of the policy's options, or `false` to send it once. */
  readonly jitterbug?: CallOverrides | false | undefined;
};

/** A function with `fetch`'s signature. */
export type FetchFunction = (input: FetchInput, init?: RequestInit) => Promise<Response>;

/**
 * How each attempt carries the body: the caller's `init` as it is (no body, or one fetch can send
 * again), the `Request` input's own body (sent once as it is, or read into bytes first when it may
 * be sent again: never cloned, see {@link Call.readRequestBody}), or bytes read into memory.
 */
type Replay = 'as-is' | 'request' | 'bytes';

/** Firefox has no `Request.prototype.body` (and no streamed uploads): a `Request`'s body is in memory there. */
const requestBodiesAreStreams = typeof Request !== 'undefined' && 'body' in Request.prototype;

/** What a `Request` sent to another URL keeps of itself, in the init that replaces it. */
const REQUEST_FIELDS = [
  'method',
  'credentials',
  'cache',
  'redirect',
  'referrer',
  'referrerPolicy',
  'integrity',
  'keepalive',
  'signal',
] as const;

/** A `Request` (from any realm), not a URL. */
export const isRequestInput = (input: FetchInput): input is Request =>
  typeof input === 'object' && 'bodyUsed' in input;

/**
 * A body fetch reads once: a `ReadableStream`, or an async iterable (Node, Deno and Bun take those).
 * Everything else fetch takes (a string, bytes, `Blob`, `FormData`, `URLSearchParams`) is sent again.
 */
export const isStreamBody = (body: object | string): boolean =>
  typeof body === 'object' && (body instanceof ReadableStream || Symbol.asyncIterator in body);

/** The caller's init without the `jitterbug` field (fetch ignores unknown fields; the inner fetch may not). */
const withoutOverrides = (init: FetchInit | undefined): RequestInit | undefined => {
  if (!init || !('jitterbug' in init)) return init;
  const { jitterbug: _, ...rest } = init;
  return rest;
};

/**
 * One call's request: the parts the core reads (the call describes itself to `policy.begin`), and
 * what each attempt sends. The engine's `Call` is this, and sends it.
 */
export class RequestParts {
  /** The caller's first argument: a URL, or a `Request`. */
  declare input: FetchInput;
  /** The caller's init without `jitterbug`. */
  declare init: RequestInit | undefined;
  /** The request's method, in upper case. */
  declare method: string;
  /** Where the attempts go (the caller's URL, or what `beforeRetry` set). */
  declare url: string;
  /** The caller's signal. */
  declare callerSignal: AbortSignal | undefined;
  /** Whether the request has a body, and whether it can be sent again. */
  declare body: BodyKind;
  declare private replay: Replay;
  declare private bytes: Uint8Array<ArrayBuffer> | undefined;
  /** The headers the attempts send (none given: `undefined`). */
  declare protected headerSource: HeadersInit | undefined;
  declare private headerCache: Headers | undefined;
  /** Whether the headers were changed between attempts: every attempt then sends them in `init`. */
  declare private edited: boolean;

  /**
   * @param bodyHint - the body's kind when the caller knows better than the `Request` shows (ky
   *   knows the body it put into its `Request`).
   */
  constructor(input: FetchInput, init: FetchInit | undefined, bodyHint?: BodyKind) {
    // Every field is assigned here first, then set by `use`: V8 keeps in the object itself the
    // fields its constructor assigns and ten more, and puts later ones in an array of their own,
    // grown by a copy as they come. With only `use` assigning them, a call's own fields (the
    // engine's `fetch`, `run` and the status it checked; ky's) grew that array twice a request.
    this.input = input;
    this.init = undefined;
    this.bytes = undefined;
    this.headerCache = undefined;
    this.method = 'GET';
    this.url = '';
    this.callerSignal = undefined;
    this.headerSource = undefined;
    this.edited = false;
    this.replay = 'as-is';
    this.body = 'none';
    this.use(input, withoutOverrides(init), bodyHint);
  }

  /**
   * Takes `input` and `init` as the request: the caller's, or one that replaces it whole for the next
   * attempts (what a client's hook returned: ky's `beforeRetry`; its body then `'replayable'`, to be
   * read into bytes by {@link readRequestBody}).
   */
  use(input: FetchInput, init: RequestInit | undefined, bodyHint: BodyKind | undefined): void {
    this.input = input;
    this.init = init;
    this.bytes = undefined;
    this.headerCache = undefined;
    const request = isRequestInput(input) ? input : undefined;
    this.method = init?.method ?? request?.method ?? 'GET';
    this.url = typeof input === 'string' ? input : request ? request.url : (input as URL).href;
    this.callerSignal = init?.signal ?? request?.signal ?? undefined;
    this.headerSource = init?.headers ?? request?.headers;
    this.edited = false;
    this.replay = 'as-is';
    if (init?.body != null) {
      this.body = isStreamBody(init.body) ? 'stream' : 'replayable';
    } else if (
      !request ||
      (requestBodiesAreStreams ? request.body === null : this.method === 'GET' || this.method === 'HEAD')
    ) {
      this.body = 'none';
    } else if (bodyHint === 'stream') {
      // The caller's body was a stream (ky says so): sent once, even where the `Request` holds it in
      // memory. Firefox turns a stream into the text "[object ReadableStream]": what the caller
      // meant to send is not there to send again, and every client must leave it at one attempt.
      this.body = 'stream';
    } else if (bodyHint === 'replayable' || !requestBodiesAreStreams) {
      this.body = 'replayable';
      this.replay = 'request';
    } else {
      this.body = bodyHint ?? 'stream';
    }
  }

  /** The request headers, read only when the core asks (the idempotency key of a POST). */
  readonly headers: HeaderGetter = (name) => {
    if (!this.headerSource) return undefined;
    this.headerCache ??= new Headers(this.headerSource);
    return this.headerCache.get(name);
  };

  /** A copy of the headers the next attempt sends. */
  requestHeaders(): Headers {
    return new Headers(this.headerSource);
  }

  /**
   * Sends the next attempts to `url` with `headers`. A `Request` input sent elsewhere becomes a URL
   * and an init of its own (its body read into memory once, which needs a promise): a `Request` cannot
   * be copied to another URL with its body in every runtime.
   */
  edit(url: string, headers: Headers): void | Promise<void> {
    this.headerSource = headers;
    this.headerCache = undefined;
    this.edited = true;
    if (url === this.url) return undefined;
    this.url = url;
    const input = this.input;
    if (!isRequestInput(input)) {
      this.input = url;
      return undefined;
    }
    const read = this.readRequestBody();
    const init: Record<string, unknown> = {};
    for (const key of REQUEST_FIELDS) init[key] = input[key];
    this.input = url;
    this.init = { ...init, ...this.init };
    return read;
  }

  /**
   * Reads a `Request` input's in-memory body into bytes, once, for a request that may be sent more
   * than once: every attempt then sends the `Request` with these bytes as its `init.body` (which
   * fetch takes over a used `Request`'s own). A `Request` is never cloned: Chromium abandons the
   * upload of a `Request` whose body was cloned (teed) when its connection goes away, and never
   * settles its promise (ky POSTs and PUTs during an HTTP/2 server's connection rotation).
   */
  readRequestBody(): Promise<void> | undefined {
    if (this.replay !== 'request') return undefined;
    return (this.input as Request).arrayBuffer().then((bytes) => this.useBytes(new Uint8Array(bytes)));
  }

  /** The body was read into memory whole: every attempt sends these bytes. */
  useBytes(bytes: Uint8Array<ArrayBuffer>): void {
    this.bytes = bytes;
    this.body = 'replayable';
    this.replay = 'bytes';
  }

  /**
   * The arguments of one attempt: the input with the call's own init, the body's bytes when it was
   * read into memory, the attempt's `signal`, and `extra` headers set over the call's own (a resumed
   * download's `Range` and `If-Range`). Nothing is copied: a body sent again was read first.
   */
  attempt(
    signal: AbortSignal | undefined,
    extra?: Readonly<Record<string, string>>,
  ): [FetchInput, RequestInit | undefined] {
    let init = this.init;
    if (this.replay === 'bytes') init = { ...init, body: this.bytes! };
    if (signal) init = { ...init, signal };
    if (this.edited && !extra) init = { ...init, headers: this.headerSource as Headers };
    if (extra) {
      // Given in init, these replace a Request input's headers: they are a copy of them plus extra.
      const headers = new Headers(this.headerSource);
      for (const name of Object.keys(extra)) headers.set(name, extra[name]!);
      init = { ...init, headers };
    }
    return [this.input, init];
  }
}
