/**
 * The 429 burst: 20 GETs at once against nginx's `limit_req` (20 a second, 10 more at once,
 * `nodelay`), which refuses the rest with 429 and `Retry-After: 1`. Same-origin (the page and the
 * API on `site`) and cross-origin (`api`, which exposes `Retry-After`): every request ends 200,
 * each retry after a 429 waited the server's second (its event says `retry-after`), and reached
 * nginx no sooner, by nginx's own clock.
 *
 * Cross-origin without the header exposed (`/api/burst-hidden/`: the browser hides `Retry-After`
 * from the page): the retry events and the summary say that the 429's delay could not be read,
 * and the retries wait jitterbug's second for such a 429.
 */
import { expect } from 'vitest';
import type { AccessLogLine } from '../../support/nginx/access-log.ts';
import type { PageOutcome, PageRetry } from '../protocol.ts';
import { ending, PENDING_AFTER_MS, type ScenarioContext, tally } from '../scenario.ts';
import { BURST_RATE } from '../setup.ts';
import type { ServerName } from '../stack.ts';

export const BURST = 20;
const RETRY_AFTER_MS = BURST_RATE.retryAfterSeconds * 1000;

export interface BurstRun {
  readonly outcomes: readonly PageOutcome[];
  readonly retries: readonly PageRetry[];
  /** nginx's lines for the run's paths, per path in order. */
  readonly lines: readonly (readonly AccessLogLine[])[];
}

/** 20 GETs at once from the page on `site` to `server`, under `location` (`burst` or `burst-hidden`). */
export const runBurst = async (
  ctx: ScenarioContext,
  server: ServerName,
  location: 'burst' | 'burst-hidden',
): Promise<BurstRun> => {
  const base = `${ctx.stack.origin(server)}${ctx.prefix(location)}/${server}`;
  const requests = Array.from({ length: BURST }, (_, i) => ({ method: 'GET', url: `${base}/item-${i}` }));
  const reply = await ctx
    .page('site')
    .run({ client: ctx.client, requests, pendingAfterMs: PENDING_AFTER_MS });
  const log = await ctx.stack.nginx.accessLog.settled();
  const lines = requests.map(({ url }) => log.filter((l) => l.uri === new URL(url).pathname));
  const retries = reply.outcomes.flatMap((o) => o.retries);
  const served = tally(lines.flat(), (l) => String(l.status));
  ctx.report(
    `429 burst, ${location} on ${server}: nginx served ${JSON.stringify(served)}; the page got ${JSON.stringify(tally(reply.outcomes, ending))}; retries waited ${JSON.stringify(tally(retries, (r) => `${r.delaySource}${r.serverDelayUnread ? ' (delay unread)' : ''}`))}, ${Math.min(...retries.map((r) => r.delayMs))}-${Math.max(...retries.map((r) => r.delayMs))} ms`,
  );
  return { outcomes: reply.outcomes, retries, lines };
};

/** Every request ended 200, every retry after a 429 waited the server's delay, by the page's events and by nginx's clock. */
export const expectServerPacing = ({ outcomes, retries, lines }: BurstRun): void => {
  expect(tally(outcomes, ending)).toEqual({ '200': BURST });
  // nginx refused some, or this measured nothing.
  expect(lines.flat().filter((l) => l.status === 429).length).toBeGreaterThan(0);
  for (const r of retries) {
    expect(r).toMatchObject({ status: 429, delaySource: 'retry-after', serverDelayUnread: false });
    expect(r.delayMs).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
  }
  for (const o of outcomes) expect(o.info?.serverDelaysUnread).toBe(0);
  for (const path of lines)
    for (let i = 1; i < path.length; i++)
      if (path[i - 1]!.status === 429)
        expect(path[i]!.startMs - path[i - 1]!.endMs).toBeGreaterThanOrEqual(RETRY_AFTER_MS - 3);
};

export const burstSameOrigin = async (ctx: ScenarioContext): Promise<void> =>
  expectServerPacing(await runBurst(ctx, 'site', 'burst'));

export const burstCrossOrigin = async (ctx: ScenarioContext): Promise<void> =>
  expectServerPacing(await runBurst(ctx, 'api', 'burst'));

/**
 * Cross-origin, `Retry-After` not exposed: every retry of a 429 says its delay could not be read,
 * and so does the summary; such a 429 waits at least a second, so the burst still ends 20 of 20.
 */
export const burstHidden = async (ctx: ScenarioContext): Promise<void> => {
  const { outcomes, retries, lines } = await runBurst(ctx, 'api', 'burst-hidden');
  expect(tally(outcomes, ending)).toEqual({ '200': BURST });
  expect(lines.flat().filter((l) => l.status === 429).length).toBeGreaterThan(0);
  for (const r of retries) {
    expect(r).toMatchObject({ status: 429, delaySource: 'backoff', serverDelayUnread: true });
    expect(r.delayMs).toBeGreaterThanOrEqual(1000);
  }
  for (const o of outcomes) expect(o.info?.serverDelaysUnread).toBe(o.retries.length);
};
