/**
 * What a failed answer says about sending its request again, besides its status and its delay:
 * the answers of an idempotency key (draft-ietf-httpapi-idempotency-key-header-07) and the problem
 * types of draft-ietf-httpapi-ratelimit-headers. Read only for a status of 400 or more.
 */
import type { HeaderGetter } from './retry-after.ts';

/**
 * What an answer says: `key-in-use` (a keyed request's 409: a request with this key is still being
 * processed, so this one waits and is sent again), `reduced-capacity` (a `temporary-reduced-capacity`
 * problem: try again at the server's time), or, for a stop, `key-reused` (a keyed request's 422: the
 * key was used with another payload, which no retry changes), `quota-exceeded` (a `quota-exceeded`
 * problem: nothing goes through before the quota is reset), `abnormal-usage` (an
 * `abnormal-usage-detected` problem: the server takes the requests for abuse).
 */
export type AnswerSignal =
  | 'key-in-use'
  | 'reduced-capacity'
  | 'key-reused'
  | 'quota-exceeded'
  | 'abnormal-usage';

const IANA = 'https://iana.org/assignments/http-problem-types#';

/** The RateLimit draft's problem types (`type` of an `application/problem+json` body), by URI. */
const PROBLEM_TYPES: ReadonlyMap<string, AnswerSignal> = new Map([
  [`${IANA}quota-exceeded`, 'quota-exceeded'],
  [`${IANA}temporary-reduced-capacity`, 'reduced-capacity'],
  [`${IANA}abnormal-usage-detected`, 'abnormal-usage'],
]);

/** Whether the request carries an idempotency key (a non-blank `header`; `false`: keys are off). */
export const hasKey = (requestHeaders: HeaderGetter, header: string | false): boolean => {
  if (header === false) return false;
  const key = requestHeaders(header);
  return typeof key === 'string' && key.trim() !== '';
};

/**
 * What a failed answer says (see {@link AnswerSignal}), or `undefined`: its problem type first, then a
 * keyed request's 409 or 422. An unkeyed 409 or 422 says nothing here: the status rules decide it.
 */
export const answerSignal = (
  status: number,
  problemType: string | undefined,
  requestHeaders: HeaderGetter,
  header: string | false,
): AnswerSignal | undefined => {
  const problem = problemType === undefined ? undefined : PROBLEM_TYPES.get(problemType);
  if (problem) return problem;
  if (status !== 409 && status !== 422) return undefined;
  if (!hasKey(requestHeaders, header)) return undefined;
  return status === 409 ? 'key-in-use' : 'key-reused';
};

/** Whether a signal asks for a retry (one the status alone may not get). */
export const asksRetry = (signal: AnswerSignal | undefined): signal is 'key-in-use' | 'reduced-capacity' =>
  signal === 'key-in-use' || signal === 'reduced-capacity';
