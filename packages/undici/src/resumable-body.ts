/**
 * Resuming a delivered body that breaks (the opt-in `resume`): what a request keeps of the response
 * it handed over, the dispatch that asks for the rest (`Range`/`If-Range` laid over the caller's
 * headers, in whichever shape undici was given them), and how the answer is reported to the run.
 * Every decision is the core's: `resumeValidator`, `resumeDecision`, `checkResumed`.
 */
import type { ResumeError } from '@jitterbug/core';
import type { RetryRun } from '@jitterbug/core/adapter';
import { checkResumed, type Decision, resumeHeaders, resumeValidator } from '@jitterbug/core/adapter';
import { responseHeaderGetter } from './request-info.ts';
import type { DispatchOpts, HeaderRecord } from './types.ts';

/**
 * `headers` (a record, a flat `[name, value, …]` array or an iterable of pairs, as undici takes them)
 * with `extra` set over them: same-named headers of the caller's are replaced, whatever their case.
 */
export const withHeaders = (headers: unknown, extra: Readonly<Record<string, string>>): unknown => {
  const names = Object.keys(extra);
  const replaced = (name: unknown): boolean => names.includes(String(name).toLowerCase());
  if (headers === undefined || headers === null) return { ...extra };
  if (Array.isArray(headers) || typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    const flat: unknown[] = [];
    if (Array.isArray(headers)) {
      for (let i = 0; i + 1 < headers.length; i += 2) {
        if (!replaced(headers[i])) flat.push(headers[i], headers[i + 1]);
      }
    } else {
      for (const [name, value] of headers as Iterable<readonly [unknown, unknown]>) {
        if (!replaced(name)) flat.push(name, value);
      }
    }
    for (const name of names) flat.push(name, extra[name]);
    return flat;
  }
  const record: Record<string, unknown> = {};
  for (const name of Object.keys(headers)) {
    if (!replaced(name)) record[name] = (headers as Record<string, unknown>)[name];
  }
  return { ...record, ...extra };
};

/** A delivered response whose body can be resumed, and the state of resuming it. */
export class BodyResume {
  declare readonly validator: string;
  /** The headers object the caller was handed: undici 8's `request()` reads the summary from it. */
  declare readonly headers: HeaderRecord;
  declare private readonly opts: DispatchOpts;
  /** Body bytes handed to the caller: where the rest starts. */
  declare bytes: number;
  /** The body broke: attempts now ask for the rest, and their answers are not the caller's. */
  declare resuming: boolean;
  /** Why the last answer for the rest cannot continue the body (ends it once drained). */
  declare refused: ResumeError | undefined;

  constructor(validator: string, headers: HeaderRecord, opts: DispatchOpts) {
    this.validator = validator;
    this.headers = headers;
    this.opts = opts;
    this.bytes = 0;
    this.resuming = false;
    this.refused = undefined;
  }

  /** The dispatch options that ask for the rest of the body. */
  restOpts(): DispatchOpts {
    return {
      ...this.opts,
      headers: withHeaders(this.opts.headers, resumeHeaders(this.bytes, this.validator)),
    };
  }

  /**
   * Reports the answer to a request for the rest: an answer that continues the body, or a status
   * the run may retry (a 503), as its status; a 2xx that does not continue it as a failed attempt
   * (the summary then says so). Keeps what `checkResumed` refused, to end the body with.
   */
  report(run: RetryRun, status: number, headers: HeaderRecord): Decision | Promise<Decision> {
    const getter = responseHeaderGetter(headers);
    const refused = checkResumed(status, getter, this.bytes, this.validator);
    this.refused = refused;
    return refused && status < 400
      ? run.next({ error: refused })
      : (run.settle(status) ?? run.next({ status, headers: getter }));
  }
}

/** The resume state for a response handed over, when its body could be resumed. */
export const bodyResume = (
  run: RetryRun,
  status: number,
  headers: HeaderRecord,
  opts: DispatchOpts,
): BodyResume | undefined => {
  const validator = resumeValidator(run.method, status, responseHeaderGetter(headers));
  return validator === undefined ? undefined : new BodyResume(validator, headers, opts);
};
