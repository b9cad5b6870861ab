/**
 * Resuming a download whose body broke after the response was handed over (undici's RetryHandler
 * does this for `request()`): the rest is asked for with `Range: bytes=N-` and `If-Range: <validator>`,
 * and only a `206` whose `Content-Range` starts at N, for the same representation, is spliced on.
 * Anything else ends the body with an error: mismatched bytes are never joined.
 */
import type { AttemptOutcome } from '../decide.ts';
import type { PromiseDriven } from '../drive/promise.ts';
import type { RetryInfo } from '../events.ts';
import { type HeaderGetter, parseHttpDate } from '../retry-after.ts';
import type { AttemptResult } from '../steps.ts';
import type { EditableRequest } from '../types.ts';
import { isFeature } from './feature.ts';

/**
 * How the adapter sends the requests for the rest of a body, and reads what comes back; what
 * `beforeRetry` changes of them stays for the request's later attempts.
 */
export interface ResumeSender extends EditableRequest {
  /** The caller's signal: its abort ends the body as it would without jitterbug. */
  readonly signal: AbortSignal | undefined;
  /**
   * Sends the request again with `headers` over its own (`Range`, `If-Range`), ended by `signal`,
   * with the attempt timeout of any attempt. Never rejects: a failure comes back as its error, with
   * the code the core should read when the error carries none of its own.
   */
  send(
    headers: Readonly<Record<string, string>>,
    signal: AbortSignal,
  ): Promise<
    | Response
    | {
        /** What the request failed with. */
        readonly error: unknown;
        /** The code for the core to read, when `error` carries none. */
        readonly code?: string | undefined;
      }
  >;
  /** Drops an answer that is not used: at most `maxBytes` of its body drained, the rest cancelled. */
  discard(response: Response, maxBytes: number): Promise<void>;
  /** The code of an error the body broke with, when it carries none the core can read. */
  codeOf(error: unknown): string | undefined;
}

/**
 * What a resume reads and asks of the run it continues (the attempt sequence): it decides on the
 * break, and drives the requests for the rest. Public members only, so that a `Resume` from another
 * copy of the package type-checks against this copy's runs.
 */
export interface ResumedRun extends PromiseDriven {
  /** The run's summary, once it finished; a resume opens it again. */
  summary: RetryInfo | undefined;
  /** Upper-case method. */
  readonly method: string;
  /** What the decision looks at for the result `r`. */
  outcome(
    r: Partial<Extract<AttemptResult, { status: number }> & Extract<AttemptResult, { error: unknown }>>,
  ): AttemptOutcome;
}

/** Why a resumed body could not be continued. */
export class ResumeError extends Error {
  /** Always `ERR_JITTERBUG_RESUME`. */
  readonly code = 'ERR_JITTERBUG_RESUME';
  constructor(message: string, options?: { cause?: unknown }) {
    super(`jitterbug: ${message}`, options);
    this.name = 'ResumeError';
  }
}

/**
 * The validator a broken body of this response could be resumed with (for `If-Range`), or
 * `undefined` when it cannot be: not a GET answered 200, a weak ETag and no `Last-Modified`, a
 * content coding (ranges count the encoded bytes, a client decodes them), or `Accept-Ranges: none`.
 */
export const resumeValidator = (
  method: string,
  status: number,
  headers: HeaderGetter,
): string | undefined => {
  if (method !== 'GET' || status !== 200) return undefined;
  const coding = headers('content-encoding');
  if (coding && coding.trim().toLowerCase() !== 'identity') return undefined;
  if (headers('accept-ranges')?.trim().toLowerCase() === 'none') return undefined;
  const etag = headers('etag')?.trim();
  if (etag && !etag.startsWith('W/')) return etag;
  return headers('last-modified')?.trim() || undefined;
};

/** The headers that ask for the rest of a body from byte `from`, if it is still `validator`. */
export const resumeHeaders = (
  from: number,
  validator: string,
): {
  /** `bytes=N-`: the rest from byte `from`. */
  range: string;
  /** `validator`: the rest only if the representation is still that one. */
  'if-range': string;
} => ({
  range: `bytes=${from}-`,
  'if-range': validator,
});

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/**
 * Whether the answer to a resuming request continues the body at byte `from` to its end, as the same
 * representation without a content coding: `undefined` when it does, else the `ResumeError` to end
 * the body with. `length`: the whole body's length as the first answer declared it, when it did.
 */
export const checkResumed = (
  status: number,
  headers: HeaderGetter,
  from: number,
  validator: string,
  length?: number,
): ResumeError | undefined => {
  if (status === 200)
    return new ResumeError(
      'the server sent the whole body again instead of the rest (it ignored Range, or the representation changed)',
    );
  if (status !== 206)
    return new ResumeError(`the server answered ${status} to the request for the rest of the body`);
  const range = CONTENT_RANGE.exec(headers('content-range')?.trim() ?? '');
  if (!range || Number(range[1]) !== from) {
    return new ResumeError(
      `the rest of the body does not start at byte ${from} (Content-Range: ${headers('content-range') ?? 'none'})`,
    );
  }
  // A part that stops before the end would end the caller's body short, without an error.
  if (range[3] !== '*' && Number(range[2]) !== Number(range[3]) - 1) {
    return new ResumeError(`the rest of the body stops before its end (Content-Range: ${range[0]})`);
  }
  if (range[3] !== '*' && length !== undefined && Number(range[3]) !== length) {
    return new ResumeError(
      `the rest is of a body of ${range[3]} bytes, where the first answer declared ${length} (Content-Range: ${range[0]})`,
    );
  }
  // The bytes spliced on must be the same encoding as those delivered (the first answer had none).
  const coding = headers('content-encoding')?.trim().toLowerCase();
  if (coding && coding !== 'identity') {
    return new ResumeError(`the rest of the body came with Content-Encoding: ${coding}`);
  }
  // The validator is the first answer's ETag (quoted, or not: some servers send a bare one) or its
  // Last-Modified date; the rest must not carry another.
  const byDate = parseHttpDate(validator) !== undefined;
  const current = headers(byDate ? 'last-modified' : 'etag')?.trim();
  if (current !== undefined && current !== validator) {
    return new ResumeError(
      `the representation changed (${byDate ? 'Last-Modified' : 'ETag'} ${current}, was ${validator})`,
    );
  }
  return undefined;
};

/**
 * Resumed downloads, made by `createResume`: what the adapters that resume need and others do
 * not carry. The undici adapter resumes with its own handler; this carries the part for clients whose
 * answers are WHATWG `Response`s.
 */
export interface Resume {
  /**
   * What the caller gets for `response`, `run`'s final answer: `response` itself when its body could
   * not be resumed (see {@link resumeValidator}), else a new `Response` with the same status, status
   * text and headers and a body that asks for the rest when it breaks (without `url`, `redirected`
   * or `type`: fetch sets those only on responses it makes). Carries the run's summary either way.
   */
  response(response: Response, run: ResumedRun, sender: ResumeSender): Response;
}

/** Whether a value was made by `createResume`. */
export const isResume = (value: unknown): value is Resume => isFeature(value, 'resume');

/** The `resume` option, as the feature table's row puts it in the public options. */
export interface ResumeOption {
  /**
   * Resumed downloads, from `createResume()`: a download whose body breaks after the response was
   * handed over asks for the rest (`Range` from the byte it broke at, `If-Range` with the response's
   * strong ETag or Last-Modified; only a `206` that continues the same representation at that byte
   * is spliced on, anything else ends the body with a `ResumeError`). For a GET answered 200 without
   * a content coding; each resume counts as an attempt and draws on the budget. Default `false`
   * (continuing a body costs every such response a stream of its own; with fetch the caller gets a
   * new `Response`, without `url`/`redirected`). A factory, so that a program that never resumes
   * does not carry it.
   */
  readonly resume?: Resume | false;
}
