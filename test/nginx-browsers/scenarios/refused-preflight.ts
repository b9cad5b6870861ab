/**
 * A preflight refused by an edge limiter: `api`'s `/api/edge/` counts preflights against a limit
 * of one a minute (nginx's `limit_req` on `OPTIONS`, answered 429), the way a rate limiter in
 * front of an API counts every request, preflights included. The page's first preflighted call
 * spends it; then every preflight is refused, and the browser reports each call as a bare network
 * error, the server never seeing the call itself. jitterbug retries what it may retry after any
 * network failure — a GET (here with an `Authorization` header, so preflighted), a POST with an
 * `Idempotency-Key` — with its ordinary backoff up to `maxAttempts`, each retry a preflight of its
 * own, refused again; a POST without a key (JSON, so preflighted) is sent once.
 */
import { DEFAULTS } from '@jitterbug/core';
import { expect } from 'vitest';
import type { PageRequest } from '../protocol.ts';
import { ending, PENDING_AFTER_MS, type ScenarioContext } from '../scenario.ts';

const TOKEN = { authorization: 'Bearer page-token' };
const ORDER = { kind: 'json', value: { sku: 'A-1', quantity: 2 } } as const;

export const refusedPreflight = async (ctx: ScenarioContext): Promise<void> => {
  const base = `${ctx.stack.origin('api')}${ctx.prefix('edge')}`;
  const pathOf = (name: string) => `${ctx.prefix('edge')}/${name}`;
  const page = ctx.page('site');
  // The minute's one preflight.
  const primer = await page.run({
    client: ctx.client,
    requests: [{ method: 'GET', url: `${base}/primer`, headers: TOKEN }],
    pendingAfterMs: PENDING_AFTER_MS,
  });
  expect(primer.outcomes.map(ending)).toEqual(['200']);

  const requests: PageRequest[] = [
    { method: 'GET', url: `${base}/get`, headers: TOKEN },
    {
      method: 'POST',
      url: `${base}/keyed`,
      headers: { 'idempotency-key': `order-${ctx.client}` },
      body: ORDER,
    },
    { method: 'POST', url: `${base}/unkeyed`, body: ORDER },
  ];
  const reply = await page.run({ client: ctx.client, requests, pendingAfterMs: PENDING_AFTER_MS });
  const log = await ctx.stack.nginx.accessLog.settled();
  const logged = (name: string) =>
    log.filter((l) => l.uri === pathOf(name)).map((l) => `${l.method} ${l.status}`);
  const [get, keyed, unkeyed] = reply.outcomes;
  ctx.report(
    `refused preflight: GET ${ending(get!)} after ${get!.info?.attempts} attempts (${get!.retries.map((r) => `${Math.round(r.delayMs)} ms`).join(', ')}), keyed POST ${ending(keyed!)} after ${keyed!.info?.attempts}, POST without a key ${ending(unkeyed!)} after ${unkeyed!.info?.attempts}; the browser said ${JSON.stringify(get!.error?.cause?.message ?? get!.error?.message)}`,
  );

  const { maxAttempts } = DEFAULTS;
  for (const retried of [get!, keyed!]) {
    expect(retried).toMatchObject({
      kind: 'error',
      info: { attempts: maxAttempts, reason: 'max-attempts', retries: Array(maxAttempts - 1).fill('error') },
    });
    for (const r of retried.retries) expect(r).toMatchObject({ delaySource: 'backoff', status: null });
  }
  expect(unkeyed).toMatchObject({
    kind: 'error',
    info: { attempts: 1, reason: 'method-not-idempotent', retries: [] },
  });
  // Each attempt was a preflight of its own, refused; the calls themselves never left the browser.
  expect(logged('get')).toEqual(Array(maxAttempts).fill('OPTIONS 429'));
  expect(logged('keyed')).toEqual(Array(maxAttempts).fill('OPTIONS 429'));
  expect(logged('unkeyed')).toEqual(['OPTIONS 429']);
  expect(logged('primer')).toEqual(['OPTIONS 200', 'GET 200']);
  const reached = ctx.stack.backend.requests.filter((r) => r.path.startsWith(ctx.prefix('edge')));
  expect(reached.map((r) => `${r.method} ${r.path}`)).toEqual([
    `OPTIONS ${pathOf('primer')}`,
    `GET ${pathOf('primer')}`,
  ]);
};
