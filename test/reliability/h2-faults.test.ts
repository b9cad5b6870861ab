/**
 * The reliability suite's invariants over HTTP/2: a burst of mixed requests (GET, POST with and
 * without an Idempotency-Key, stream bodies with and without one) through each client that speaks
 * HTTP/2 through jitterbug's undici interceptor (`allowH2`: undici 8 `request()` and `fetch()`,
 * undici 7 `request()`, Node's fetch through an undici 7 agent), while the HTTP/2
 * scripted server refuses streams (RST_STREAM `REFUSED_STREAM`, GOAWAY below them), resets them
 * (RST_STREAM `INTERNAL_ERROR`/`CANCEL` before the headers or mid-body), loses connections after a
 * GOAWAY, and sends every connection a GOAWAY (graceful or abrupt) every few milliseconds.
 *
 * Asserted from the server's own log: no request without a key processed twice, no stream body
 * sent twice, a keyed POST always with its key and body; every request ends (no hang), with the
 * whole answer or an error, never a part of a body as a whole one; nothing left behind (connections,
 * sockets, timers, unhandled rejections).
 *
 * Two schedules. Refusals, resets and graceful GOAWAYs: everything ends by itself and the client
 * closes. With lost connections too (a GOAWAY then the connection dropped, per request and to every
 * connection in turn): undici 8 sometimes never ends a request it had queued or sent on such a
 * connection, without jitterbug as well (5 bursts of 40 of this mix through undici 8 `fetch()`
 * alone; its `agent.close()` then never resolves), a response whose body had begun included. There
 * the callers end through the bounds made for it: `attemptTimeoutMs` before the response, undici's
 * own `bodyTimeout` once it is delivered (jitterbug hands a body over as it comes); and the client
 * is destroyed rather than closed.
 */
import { DEFAULT_ERROR_CODES, seededRandom } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceDriver, ConformanceRequest } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from '../support/h2-scripted-server.ts';
import type { H2Step } from '../support/h2-steps.ts';
import {
  activeResources,
  captureUnhandled,
  errorLabel,
  runPool,
  settleResources,
  tinySleep,
  withTimeout,
} from './support.ts';

const REQUESTS = 150;
const IN_FLIGHT = 24;
const SEED = 20_261_125;
/** Every connection gets a GOAWAY this often during the burst, graceful and abrupt in turn. */
const GOAWAY_EVERY_MS = 40;

const KINDS = ['GET', 'POST+key', 'POST', 'PUT+stream', 'POST+stream'] as const;
type Kind = (typeof KINDS)[number];

/** Kinds that must never reach the server's application twice. */
const ONCE: ReadonlySet<Kind> = new Set(['POST', 'PUT+stream', 'POST+stream']);
/** Kinds whose body is a stream (never to be sent twice, refused or not). */
const STREAMED: ReadonlySet<Kind> = new Set(['PUT+stream', 'POST+stream']);

const bodyOf = (id: number, kind: Kind): string | undefined =>
  kind === 'GET' ? undefined : STREAMED.has(kind) ? `part-1 ${id};part-2 ${id}` : `body ${id}`;

const requestFor = (id: number, kind: Kind): ConformanceRequest => ({
  method: kind === 'GET' ? 'GET' : kind === 'PUT+stream' ? 'PUT' : 'POST',
  path: `/r/${id}`,
  ...(kind === 'POST+key' ? { headers: { 'Idempotency-Key': `key-${id}` } } : {}),
  ...(kind === 'GET'
    ? {}
    : STREAMED.has(kind)
      ? { body: { kind: 'stream' as const, chunks: [`part-1 ${id};`, `part-2 ${id}`] } }
      : { body: { kind: 'text' as const, value: `body ${id}` } }),
});

const OK = (id: number): H2Step => ({ status: 200, body: `ok ${id}`, delayMs: 3 });

/** The fault a request meets first (then the answer), drawn from a seeded schedule. */
const FAULTS: readonly ((id: number) => H2Step | undefined)[] = [
  () => undefined,
  () => undefined,
  () => undefined,
  () => ({ destroy: 'before-headers', rst: 'REFUSED_STREAM' }),
  () => ({ destroy: 'before-headers', goaway: 'below' }),
  () => ({ destroy: 'before-headers', rst: 'INTERNAL_ERROR' }),
  () => ({ destroy: 'before-headers', rst: 'CANCEL' }),
  () => ({ destroy: 'mid-body', rst: 'INTERNAL_ERROR', sentBytes: 20, declaredBytes: 200 }),
  () => ({ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 20, declaredBytes: 200 }),
  (id) => ({ ...OK(id), goaway: 'including' }),
];
/** A GOAWAY naming the stream, then the connection lost: the request was processed, unanswered. */
const LOST: (id: number) => H2Step = () => ({ destroy: 'before-headers', goaway: 'including', delayMs: 2 });

interface Schedule {
  readonly name: string;
  readonly faults: readonly ((id: number) => H2Step | undefined)[];
  /** Whether the GOAWAYs to every connection alternate with abrupt ones (the connection then lost). */
  readonly abrupt: boolean;
  readonly attemptTimeoutMs?: number;
}

const SCHEDULES: readonly Schedule[] = [
  { name: 'refusals, resets and graceful GOAWAYs', faults: FAULTS, abrupt: false },
  {
    name: 'and lost connections, callers bounded by attemptTimeoutMs and bodyTimeout',
    faults: [...FAULTS, LOST],
    abrupt: true,
    attemptTimeoutMs: 1_000,
  },
];

/**
 * The conformance suite's HTTP/2 clients, but `withRetry`: Node's fetch over undici 7 takes an
 * RST_STREAM `CANCEL` mid-body for the end of the body and resolves with the part, below anything
 * a fetch wrapper can see (the conformance suite records it: `truncatesOnCancel`). The interceptor
 * sees the dispatch itself and turns that into an error.
 */
const H2_DRIVERS = drivers.filter((d) => d.transports?.includes('h2') && !d.truncatesOnCancel);

describe.each(H2_DRIVERS.map((d) => [d.name, d] as const))(
  'HTTP/2 faults: %s',
  (_name, driver: ConformanceDriver) => {
    let server: H2ScriptedServer;
    beforeAll(async () => {
      server = await startH2ScriptedServer();
    });
    afterEach(() => server.reset());
    afterAll(() => server.close());

    it.each(SCHEDULES.map((s) => [s.name, s] as const))(
      `${REQUESTS} mixed requests, ${IN_FLIGHT} in flight, %s: safe, ended, no leak`,
      async (_schedule, schedule) => {
        const before = activeResources();
        const unhandled = captureUnhandled();
        const pick = seededRandom(SEED);
        const kinds: Kind[] = [];
        const { faults } = schedule;
        for (let id = 0; id < REQUESTS; id++) {
          const kind = KINDS[Math.floor(pick() * KINDS.length)]!;
          kinds.push(kind);
          const fault = faults[Math.floor(pick() * faults.length)]!(id);
          server.route(`/r/${id}`, fault ? [fault, OK(id)] : [OK(id)]);
        }
        const client = await driver.create(
          server.url,
          {
            maxAttempts: 4,
            budget: false,
            errorCodes: [...DEFAULT_ERROR_CODES, ...(driver.streamResetCodes ?? [])],
            random: seededRandom(SEED + 1),
            sleep: tinySleep().sleep,
            ...(schedule.attemptTimeoutMs === undefined
              ? {}
              : { attemptTimeoutMs: schedule.attemptTimeoutMs }),
          },
          {
            name: 'h2',
            ca: server.ca,
            ...(schedule.attemptTimeoutMs === undefined ? {} : { bodyTimeoutMs: schedule.attemptTimeoutMs }),
          },
        );

        let goaways = 0;
        let stopped = false;
        const goawayLoop = (async () => {
          while (!stopped) {
            await new Promise((resolve) => setTimeout(resolve, GOAWAY_EVERY_MS));
            if (!stopped) await server.goawayAll({ abrupt: schedule.abrupt && goaways % 2 === 1 });
            goaways++;
          }
        })();

        const problems: string[] = [];
        const endings: Record<string, number> = {};
        const pending = new Set<number>();
        const describeRequest = (id: number): string =>
          `${kinds[id]} ${id} ${JSON.stringify(server.seen(`/r/${id}`).map((r) => [r.connection, r.streamId, r.processed]))}`;
        try {
          await withTimeout(
            runPool(REQUESTS, IN_FLIGHT, async (id) => {
              pending.add(id);
              const kind = kinds[id]!;
              try {
                const { outcome } = await client.send(requestFor(id, kind));
                let ending: string;
                if (outcome.kind === 'error') {
                  if (!(outcome.error instanceof Error))
                    problems.push(`${id}: a non-Error ${String(outcome.error)}`);
                  ending = `error ${errorLabel(outcome.error)}`;
                } else if (
                  outcome.status !== 200 ||
                  outcome.kind !== 'response' ||
                  outcome.body !== `ok ${id}`
                ) {
                  // Never a part of a body handed over as the whole, never another request's answer.
                  problems.push(
                    `${kind} ${id}: ${outcome.status} ${outcome.kind === 'response' ? outcome.body : ''}`,
                  );
                  ending = 'wrong';
                } else {
                  ending = '200';
                }
                endings[`${kind} ${ending}`] = (endings[`${kind} ${ending}`] ?? 0) + 1;
              } finally {
                pending.delete(id);
              }
            }),
            20_000,
            () =>
              `hung: ${pending.size} requests never ended: ${[...pending].slice(0, 5).map(describeRequest).join('; ')}`,
          );
        } finally {
          stopped = true;
          await goawayLoop;
          // See the file's comment: with lost connections undici 8 may keep requests it never ends.
          if (schedule.abrupt) await client.destroy?.();
          else await withTimeout(client.close(), 5_000, () => 'the client did not close');
        }

        // Nothing is left: no connection on the server, no socket or timer here, no unhandled rejection.
        expect(await server.waitForIdle(5_000)).toBe(0);
        expect(await settleResources(before, 5_000)).toEqual({});
        unhandled.dispose();
        expect(unhandled.reasons.map(String)).toEqual([]);
        expect(problems).toEqual([]);

        // Safety, from the server's log.
        for (let id = 0; id < REQUESTS; id++) {
          const kind = kinds[id]!;
          const seen = server.seen(`/r/${id}`);
          const processed = seen.filter((r) => r.processed).length;
          if (ONCE.has(kind) && processed > 1) problems.push(`${kind} ${id} processed ${processed} times`);
          if (STREAMED.has(kind) && seen.length > 1)
            problems.push(`${kind} ${id}: its stream sent ${seen.length} times`);
          for (const r of seen) {
            if (r.bodyComplete && r.body.toString() !== (bodyOf(id, kind) ?? ''))
              problems.push(`${kind} ${id}: body ${JSON.stringify(r.body.toString().slice(0, 40))}`);
            if (kind === 'POST+key' && r.headers['idempotency-key'] !== `key-${id}`)
              problems.push(`POST+key ${id}: key ${String(r.headers['idempotency-key'])}`);
          }
        }
        expect(problems.slice(0, 20)).toEqual([]);
        // The burst met what it was meant to: GOAWAYs, more than one connection, whole bodies compared.
        expect(server.requests.filter((r) => r.bodyComplete && r.body.length > 0).length).toBeGreaterThan(
          REQUESTS / 4,
        );
        expect(goaways).toBeGreaterThan(0);
        expect(new Set(server.requests.map((r) => r.connection)).size).toBeGreaterThan(1);
        console.log(
          `[h2] ${driver.name}, ${schedule.name}: ${REQUESTS} requests, ${server.requests.length} streams, ${goaways} GOAWAY rounds`,
          JSON.stringify(endings),
        );
      },
      60_000,
    );
  },
);
