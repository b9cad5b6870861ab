/**
 * nginx in front of a backend that is down (its upstream a closed port: 502), same-origin and
 * cross-origin: a GET is sent `maxAttempts` times and the 502 is the answer, a POST without an
 * `Idempotency-Key` once, a POST with one `maxAttempts` times with its key, by nginx's log.
 */
import { DEFAULTS } from '@jitterbug/core';
import { expect } from 'vitest';
import type { PageRequest } from '../protocol.ts';
import { ending, PENDING_AFTER_MS, type ScenarioContext } from '../scenario.ts';
import type { ServerName } from '../stack.ts';

export const upstreamDown = async (ctx: ScenarioContext, server: ServerName): Promise<void> => {
  const prefix = `${ctx.prefix('down')}/${server}`;
  const base = `${ctx.stack.origin(server)}${prefix}`;
  const key = `order-${ctx.browser}-${ctx.client}-${server}`;
  const order = { kind: 'text', value: 'order' } as const;
  const requests: PageRequest[] = [
    { method: 'GET', url: `${base}/get` },
    { method: 'POST', url: `${base}/unkeyed`, body: order },
    { method: 'POST', url: `${base}/keyed`, headers: { 'idempotency-key': key }, body: order },
  ];
  const reply = await ctx
    .page('site')
    .run({ client: ctx.client, requests, pendingAfterMs: PENDING_AFTER_MS });
  const log = await ctx.stack.nginx.accessLog.settled();
  const logged = (name: string) =>
    log
      .filter((l) => l.uri === `${prefix}/${name}` && l.method !== 'OPTIONS')
      .map((l) => `${l.status} ${l.idempotencyKey ?? '-'}`);
  ctx.report(
    `502 on ${server}: ${reply.outcomes.map((o, i) => `${requests[i]!.method} ${ending(o)}`).join(', ')}`,
  );

  const { maxAttempts } = DEFAULTS;
  const [get, unkeyed, keyed] = reply.outcomes;
  // fetch resolves with the 502; ky and axios reject with it.
  expect([get, keyed].map((o) => [o!.status, o!.info?.reason, o!.info?.attempts])).toEqual([
    [502, 'max-attempts', maxAttempts],
    [502, 'max-attempts', maxAttempts],
  ]);
  expect([unkeyed!.status, unkeyed!.info?.reason, unkeyed!.info?.attempts]).toEqual([
    502,
    'method-not-idempotent',
    1,
  ]);
  expect(logged('get')).toEqual(Array(maxAttempts).fill('502 -'));
  expect(logged('unkeyed')).toEqual(['502 -']);
  expect(logged('keyed')).toEqual(Array(maxAttempts).fill(`502 ${key}`));
};
