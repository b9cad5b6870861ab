/**
 * Connection rotation: `rotating` closes every HTTP/2 connection after five requests (a GOAWAY;
 * streams above its last stream id are never processed). 40 requests at once, round after round,
 * half from its own page (same-origin) and half from `site`'s (cross-origin: PUTs preflighted):
 * GETs, POSTs without an `Idempotency-Key`, PUTs, each with a text body. Chromium gives up on some
 * requests a GOAWAY refused (a bare "Failed to fetch"), which jitterbug retries where the method
 * allows.
 *
 * Required in every round: nothing left pending (the bug of issue 28: a `Request` jitterbug
 * cloned, whose upload Chromium abandoned), every GET ends 200, no POST reaches the backend twice
 * (by nginx's log and the backend's record). What the POSTs and PUTs ended with is reported.
 * Through ky also with `forcedRetries`: ky's own retry limit is then above 0, and ky clones every
 * request before handing it to jitterbug (73 of 320 POSTs stayed pending in Chromium until
 * jitterbug read a browser's `Request` bodies into bytes for one attempt too).
 *
 * The policy's options are {@link ROTATION_OPTIONS}. Chromium fails about 45 % of the requests of each round's first
 * wave (plain `fetch` too), and no browser failure proves that a request was not processed, so each
 * retry of a GET or PUT draws on the retry budget. jitterbug's defaults (burst 10, 3 attempts) ended
 * 13-18 of 320 GETs per client `budget-exhausted` in 20 rounds; a page that sends 40 requests at
 * once to such a server needs a budget for 40, and a few more attempts (with no budget at all, 3
 * attempts still lost 2 of 1,280 GETs). Firefox sends again itself what a GOAWAY refused: no retry.
 */
import { expect } from 'vitest';
import type { PageOptions, PageOutcome, PageRequest } from '../protocol.ts';
import { ending, PENDING_AFTER_MS, type ScenarioContext, tally } from '../scenario.ts';
import { KEEPALIVE_REQUESTS } from '../setup.ts';

export const ROTATION_ROUNDS = 20;
export const IN_FLIGHT = 40;
/** A budget for a round's 40 requests at once, and 5 attempts: see the module's comment. */
export const ROTATION_OPTIONS: PageOptions = { maxAttempts: 5, budget: { burst: IN_FLIGHT } };
/** 16 GETs, 16 POSTs, 8 PUTs in each round. */
const METHODS = ['GET', 'POST', 'GET', 'POST', 'PUT'] as const;

interface Sent {
  readonly request: PageRequest;
  readonly path: string;
  readonly outcome: PageOutcome;
}

export const rotation = async (
  ctx: ScenarioContext,
  options: PageOptions,
  kyForcedRetries = false,
): Promise<void> => {
  const area = kyForcedRetries ? 'rotation-forced' : 'rotation';
  const sent: Sent[] = [];
  const origin = ctx.stack.origin('rotating');
  let slowest = 0;
  for (let round = 0; round < ROTATION_ROUNDS; round++) {
    const sameOrigin = round % 2 === 0;
    const requests = Array.from({ length: IN_FLIGHT }, (_, i): PageRequest => {
      const method = METHODS[i % METHODS.length]!;
      const url = `${origin}${ctx.prefix(area)}/${sameOrigin ? 'same' : 'cross'}-${round}/${method.toLowerCase()}-${i}`;
      return method === 'GET'
        ? { method, url }
        : { method, url, body: { kind: 'text', value: `payload ${i}` } };
    });
    const reply = await ctx.page(sameOrigin ? 'rotating' : 'site').run({
      client: ctx.client,
      requests,
      options,
      kyForcedRetries,
      pendingAfterMs: PENDING_AFTER_MS,
    });
    slowest = Math.max(slowest, reply.ms);
    reply.outcomes.forEach((outcome, i) => {
      const request = requests[i]!;
      sent.push({ request, path: new URL(request.url).pathname, outcome });
    });
  }
  const log = (await ctx.stack.nginx.accessLog.settled()).filter((l) => l.uri.startsWith(ctx.prefix(area)));
  const forwarded = tally(
    log.filter((l) => l.method !== 'OPTIONS' && l.upstreamStatus !== undefined),
    (l) => l.uri,
  );
  const backend = tally(
    ctx.stack.backend.requests.filter((r) => r.path.startsWith(ctx.prefix(area))),
    (r) => r.path,
  );
  const of = (method: string) => sent.filter((s) => s.request.method === method);
  const endings = (method: string) => tally(of(method), (s) => ending(s.outcome));
  const retries = sent.reduce((n, s) => n + s.outcome.retries.length, 0);
  ctx.report(
    `${area}, ${ROTATION_ROUNDS} rounds of ${IN_FLIGHT} at once (slowest ${slowest} ms, ${retries} retries): GET ${JSON.stringify(endings('GET'))}, POST ${JSON.stringify(endings('POST'))}, PUT ${JSON.stringify(endings('PUT'))}`,
  );

  expect(sent.filter((s) => s.outcome.kind === 'pending').map((s) => s.path)).toEqual([]);
  expect(endings('GET')).toEqual({ '200': of('GET').length });
  // Every 200 is nginx's: it logged a 200 for each such path.
  const logged200 = new Set(log.filter((l) => l.status === 200 && l.method !== 'OPTIONS').map((l) => l.uri));
  expect(
    sent.filter((s) => ending(s.outcome) === '200' && !logged200.has(s.path)).map((s) => s.path),
  ).toEqual([]);
  const twice = of('POST').filter((s) => (backend[s.path] ?? 0) > 1 || (forwarded[s.path] ?? 0) > 1);
  expect(twice.map((s) => s.path)).toEqual([]);
  // nginx forwarded each request as often as the backend counted it.
  expect(forwarded).toEqual(backend);
  // Rotated: no connection served more than five requests.
  expect(Math.max(...log.map((l) => l.connectionRequest))).toBe(KEEPALIVE_REQUESTS);
};
