/**
 * The load of the keep-alive and reload scenarios (issue 36), and what it must end with: requests
 * of three kinds, in turn GET, POST without a key, POST with an `Idempotency-Key`, POST without a
 * key (half of them POSTs without a key, as in the runs), each to a path of its own. The criterion, read from the client's endings and the backend's and proxy's
 * records: every GET and every keyed POST ends 200, no POST without a key reaches the backend
 * twice, and no request fails `budget-exhausted`. What the unkeyed POSTs ended with is reported,
 * not required: on HTTP/1.1 a connection reset before the answer may come after the server had the
 * request, and such a POST is sent once.
 */
import { expect } from 'vitest';
import type { ConformanceRequest } from '../conformance/driver.ts';
import type { RequestLogLine } from './log-file.ts';
import { countBy, ending, type Sent } from './sent.ts';

export type RequestKind = 'GET' | 'POST' | 'keyed POST';

const KINDS: readonly RequestKind[] = ['GET', 'POST', 'keyed POST', 'POST'];

/** Request `i` of a run named `run` (a path prefix of its own, so that runs on one server stay apart). */
export const mixedRequest = (run: string, i: number): ConformanceRequest => {
  const kind = KINDS[i % KINDS.length]!;
  const path = `/${run}/${i}`;
  if (kind === 'GET') return { method: 'GET', path };
  const body = { kind: 'text', value: `payload ${i}` } as const;
  return kind === 'POST'
    ? { method: 'POST', path, body }
    : { method: 'POST', path, body, headers: { 'Idempotency-Key': `${run}-${i}` } };
};

export const kindOf = (request: ConformanceRequest): RequestKind =>
  request.method === 'GET' ? 'GET' : request.headers?.['Idempotency-Key'] ? 'keyed POST' : 'POST';

/** What a run ended with, by the three records. */
export interface MixedOutcome {
  /** How many requests of each kind ended each way: `{ GET: { '200': 100 }, … }`. */
  readonly endings: Readonly<Record<RequestKind, Readonly<Record<string, number>>>>;
  /** Paths of POSTs without a key that the backend got more than once. */
  readonly unkeyedTwice: readonly string[];
  /** Requests that ended `budget-exhausted`. */
  readonly budgetExhausted: number;
  /** Requests that did not end 200 and that neither the backend nor the proxy's log ever saw. */
  readonly lostUnseen: number;
}

/** Reads a run's records: what the client got (`sent`), what the backend got, what the proxy logged. */
export const mixedOutcome = (
  sent: readonly Sent[],
  backendPaths: readonly string[],
  log: readonly RequestLogLine[],
): MixedOutcome => {
  const reached = countBy(backendPaths, (p) => p);
  const logged = new Set(log.map((l) => l.uri));
  const endings: Record<RequestKind, Record<string, number>> = { GET: {}, POST: {}, 'keyed POST': {} };
  let budgetExhausted = 0;
  let lostUnseen = 0;
  for (const s of sent) {
    const how = ending(s);
    const own = endings[kindOf(s.request)];
    own[how] = (own[how] ?? 0) + 1;
    if (s.result.info?.reason === 'budget-exhausted') budgetExhausted++;
    if (how !== '200' && !reached.has(s.request.path) && !logged.has(s.request.path)) lostUnseen++;
  }
  const unkeyedTwice = sent
    .filter((s) => kindOf(s.request) === 'POST' && (reached.get(s.request.path) ?? 0) > 1)
    .map((s) => s.request.path);
  return { endings, unkeyedTwice, budgetExhausted, lostUnseen };
};

/** How many requests of `kind` a run of `total` has. */
export const countOfKind = (total: number, kind: RequestKind): number =>
  Array.from({ length: total }, (_, i) => KINDS[i % KINDS.length]).filter((k) => k === kind).length;

/** The done-criterion of issue 36 for a run of `total` requests. */
export const expectMixedServed = (outcome: MixedOutcome, total: number): void => {
  expect(outcome.endings.GET).toEqual({ '200': countOfKind(total, 'GET') });
  expect(outcome.endings['keyed POST']).toEqual({ '200': countOfKind(total, 'keyed POST') });
  expect(outcome.unkeyedTwice).toEqual([]);
  expect(outcome.budgetExhausted).toBe(0);
};
