/**
 * A request for the rest of a broken body (the opt-in `resume`): the request again, with `Range`
 * from the byte the body broke at and `If-Range` with the response's validator laid over the
 * caller's headers (in whichever shape undici was given them), retried as any request, its answer
 * checked by the core's `checkResumed` before the run decides on it.
 */
import type { AsyncResource } from 'node:async_hooks';
import type { RetryRun } from '@jitterbug/core/adapter';
import { checkResumed, resumeHeaders } from '@jitterbug/core/adapter';
import { NO_SETTINGS } from './caller-side.ts';
import { eachHeader, isHeaderRecord, responseHeaderGetter } from './request-info.ts';
import { type RestCheck, RetryingRequest } from './retrying-request.ts';
import type { DispatchOpts, NewHandler } from './types.ts';
import type { Downstream } from './undici-retry.ts';

/**
 * `headers` (a record, a flat `[name, value, …]` array or an iterable of pairs, as undici takes them)
 * with `extra` set over them: same-named headers of the caller's are replaced, whatever their case.
 */
export const withHeaders = (headers: unknown, extra: Readonly<Record<string, string>>): unknown => {
  const names = Object.keys(extra);
  const replaced = (name: unknown): boolean => names.includes(String(name).toLowerCase());
  if (headers === undefined || headers === null) return { ...extra };
  if (isHeaderRecord(headers)) {
    const record: Record<string, unknown> = {};
    for (const name of Object.keys(headers)) if (!replaced(name)) record[name] = headers[name];
    return { ...record, ...extra };
  }
  const flat: unknown[] = [];
  eachHeader(headers, (name, value) => {
    if (!replaced(name)) flat.push(name, value);
  });
  for (const name of names) flat.push(name, extra[name]);
  return flat;
};

/**
 * Sends the request of `opts` for the rest of a body (for `resume`, the caller's handler), from byte
 * `from` of the representation `validator` names, after `delayMs`; `length`: what its first answer
 * declared (-1: nothing).
 */
export const sendRest = (
  downstream: Downstream,
  resume: NewHandler,
  run: RetryRun,
  scope: AsyncResource | undefined,
  opts: DispatchOpts,
  delayMs: number,
  from: number,
  validator: string,
  length: number,
): void => {
  const declared = length === -1 ? undefined : length;
  // A 2xx that does not continue the body is reported as a failed attempt (the summary then says
  // so); an answer that does, or a status the run may retry (a 503), as its status.
  const check: RestCheck = (status, headers) =>
    checkResumed(status, responseHeaderGetter(headers), from, validator, declared);
  // A rest's answer is not the caller's response: no info headers, and its statuses fail no request.
  const request = new RetryingRequest(downstream, resume, run, NO_SETTINGS, false, scope, check);
  request.start({ ...opts, headers: withHeaders(opts.headers, resumeHeaders(from, validator)) }, delayMs);
};
