/**
 * Load with faults, per client: many requests, 64 in flight, mixed methods, against a real loopback
 * server that answers about 30 % of attempts with a fault drawn from a seeded schedule. Everything
 * is asserted from the server's own log (every request carries its id in its path and a header):
 * no non-idempotent request without a key arrives twice, no stream body is replayed, keyed POSTs
 * reuse their key and body, every request ends in a success or an error the caller receives, and
 * nothing is left behind (sockets, timers, unhandled rejections).
 *
 * The five clients the issue names (axios, ky, undici `request`, undici `fetch`, Node's `fetch` with
 * an undici dispatcher) get 10,000 requests each; every other client of the conformance suite (ky 1,
 * ky 2's `afterResponse` path, undici 7, `setGlobalDispatcher`) a fifth of that, which keeps the
 * folder within its time limit on a 2-core machine. `JITTERBUG_LOAD_REQUESTS` overrides the count
 * of the five (the others get a fifth of it).
 */
import { seededRandom } from '@jitterbug/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConformanceDriver, ConformanceResult } from '../conformance/driver.ts';
import { drivers } from '../conformance/drivers/index.ts';
import { type FaultServer, startFaultServer } from './fault-server.ts';
import type { LoggedAttempt } from './fault-worker.ts';
import type { Fault } from './faults.ts';
import { expectedBody, KINDS, type Kind, okBody, pathOf, requestFor } from './load-requests.ts';
import {
  activeResources,
  captureUnhandled,
  errorLabel,
  runPool,
  settleResources,
  tinySleep,
  withTimeout,
} from './support.ts';

const REQUESTS = Number(process.env.JITTERBUG_LOAD_REQUESTS ?? 10_000);
const MAIN_CLIENTS: readonly string[] = [
  'axios',
  'ky 2',
  'undici request (undici 8)',
  'undici fetch (undici 8)',
  'global fetch + undici 8 Agent',
];
const requestsFor = (driver: ConformanceDriver): number =>
  MAIN_CLIENTS.includes(driver.name) ? REQUESTS : Math.ceil(REQUESTS / 5);
const IN_FLIGHT = 64;
const SEED = 20_251_122;
const MAX_ATTEMPTS = 4;
const ATTEMPT_TIMEOUT_MS = 400;
const SETTINGS = { slowMs: 900, hugeBytes: 1_048_576 };
const ABORT_SHARE = 0.03;
/** Why the policy may finish a request of each kind (budget off, no deadline). */
const REASONS: Record<Kind, readonly string[]> = {
  GET: ['success', 'max-attempts'],
  PUT: ['success', 'max-attempts'],
  'POST+key': ['success', 'max-attempts'],
  POST: ['success', 'method-not-idempotent'],
  'PUT+stream': ['success', 'body-not-replayable'],
};

/** What the caller got, in one word. */
type Ending =
  | { readonly kind: 'success' }
  | { readonly kind: 'status'; readonly status: number }
  | { readonly kind: 'error'; readonly label: string }
  /** The caller's signal fired (some requests abort at a random moment) and it got the reason. */
  | { readonly kind: 'aborted' };

const endingOf = (
  driver: ConformanceDriver,
  id: number,
  result: ConformanceResult,
  abortReason: unknown,
): Ending | string => {
  const o = result.outcome;
  if (o.kind === 'error') {
    if (abortReason !== undefined && driver.isAbort(o.error, abortReason)) return { kind: 'aborted' };
    if (!(o.error instanceof Error)) return `request ${id}: the caller got a non-Error: ${String(o.error)}`;
    return { kind: 'error', label: errorLabel(o.error) };
  }
  if (o.status === 200) {
    if (o.kind !== 'response' || o.body !== okBody(id)) {
      return `request ${id}: a 200 with the wrong body (${o.kind === 'response' ? o.body.length : '?'} chars)`;
    }
    return { kind: 'success' };
  }
  return { kind: 'status', status: o.status };
};

/** Whether the caller's ending can come from this answer of the server. */
const compatible = (
  ending: Ending,
  fault: Fault | undefined,
  statusOnly: boolean,
  timesOut: boolean,
): boolean => {
  switch (ending.kind) {
    case 'success':
      // Slow headers come later than the attempt timeout: only a client without one accepts them.
      return fault === 'ok' || (fault === 'slow' && !timesOut);
    case 'status':
      // A client that rejects a 503 before reading its body (ky) reports a 503 whose body was cut.
      return ending.status === 429
        ? fault === '429'
        : ending.status === 503 &&
            (fault === '503' || fault === 'huge' || (statusOnly && fault === 'mid-body'));
    case 'aborted':
      return true;
    case 'error':
      // A socket error, or a body broken after the response was handed over, or the attempt timer.
      return fault === 'destroy' || fault === 'mid-body' || ending.label === 'ERR_JITTERBUG_ATTEMPT_TIMEOUT';
  }
};

/**
 * Defines the load test for every `shards`-th client from `shard` (0-based): the clients are split
 * over several test files so that vitest runs them in parallel workers.
 * `JITTERBUG_LOAD_DRIVER=<part of a name>` keeps only matching clients (to investigate one).
 */
export const defineLoadSuite = (shard: number, shards: number): void => {
  const only = process.env.JITTERBUG_LOAD_DRIVER;
  // Heaviest first, dealt out in turn, so the shards carry about the same number of requests.
  const ordered = [...drivers].sort((a, b) => requestsFor(b) - requestsFor(a));
  const selected = ordered.filter((d, i) => i % shards === shard && (!only || d.name.includes(only)));
  describe.each(selected.map((d) => [d.name, d] as const))('load with faults: %s', (_name, driver) => {
    const REQUESTS = requestsFor(driver);
    let server: FaultServer;

    beforeAll(async () => {
      server = await startFaultServer(SEED, REQUESTS, SETTINGS);
    });
    afterAll(() => server.close());

    it(`${REQUESTS} mixed requests, ${IN_FLIGHT} in flight, ~30 % faults: safe, complete, no leaks`, async () => {
      const before = activeResources();
      const unhandled = captureUnhandled();
      const kinds: Kind[] = [];
      const pick = seededRandom(SEED);
      for (let id = 0; id < REQUESTS; id++) kinds.push(KINDS[Math.floor(pick() * KINDS.length)]!);
      // A few callers abort at a random moment: during an attempt, a discard or a wait.
      const abortAfterMs: Array<number | undefined> = kinds.map(() =>
        pick() < ABORT_SHARE ? Math.floor(pick() * 40) : undefined,
      );
      const abortedAt = new Map<number, number>();
      const recorder = tinySleep();
      // What the policy decided, per request: printed with any problem found for it.
      const trail = new Map<string, string[]>();
      const note = (url: string, text: string): void => {
        const path = new URL(url).pathname;
        const list = trail.get(path);
        if (list) list.push(text);
        else trail.set(path, [text]);
      };
      const client = await driver.create(server.url, {
        onRetry: (e) => note(e.url, `retry#${e.attempt}:${e.status ?? errorLabel(e.error)}`),
        onFinish: (s) => note(s.url, `finish:${s.attempts}:${s.reason}`),
        maxAttempts: MAX_ATTEMPTS,
        attemptTimeoutMs: ATTEMPT_TIMEOUT_MS,
        budget: false,
        random: seededRandom(SEED + 1),
        sleep: recorder.sleep,
      });

      const endings = new Map<number, Ending>();
      const problems: string[] = [];
      const pending = new Set<number>();
      const started = Date.now();
      try {
        await withTimeout(
          runPool(REQUESTS, IN_FLIGHT, async (id) => {
            pending.add(id);
            const abortAfter = abortAfterMs[id];
            const controller = new AbortController();
            const reason = new Error(`request ${id} aborted by its caller`);
            const timer =
              abortAfter === undefined
                ? undefined
                : setTimeout(() => {
                    abortedAt.set(id, Date.now());
                    controller.abort(reason);
                  }, abortAfter);
            try {
              const request = requestFor(id, kinds[id]!);
              const result = await client.send(
                abortAfter === undefined ? request : { ...request, signal: controller.signal },
              );
              const ending = endingOf(driver, id, result, abortAfter === undefined ? undefined : reason);
              if (typeof ending === 'string') problems.push(ending);
              else endings.set(id, ending);
            } catch (error) {
              problems.push(`request ${id}: the driver itself threw ${String(error)}`);
            } finally {
              clearTimeout(timer);
              pending.delete(id);
            }
          }),
          90_000,
          () => `hung: ${pending.size} requests never ended, e.g. ${[...pending].slice(0, 5).join(', ')}`,
        );
      } finally {
        await client.close();
      }
      const elapsed = Date.now() - started;

      // The process is as it was: no socket left on the server, no timer or socket in this process.
      expect(await server.waitForIdle(5_000)).toBe(0);
      expect(await settleResources(before, 5_000)).toEqual({});
      unhandled.dispose();
      expect(unhandled.reasons.map(String)).toEqual([]);

      // Every request ended, in a way the caller can tell apart.
      expect(problems).toEqual([]);
      expect(endings.size).toBe(REQUESTS);

      const log = await server.log();
      const { faults, times } = log;
      const byId = new Map<number, LoggedAttempt[]>();
      for (const seen of log.attempts) {
        const id = seen.id;
        expect(seen.path).toBe(pathOf(id));
        const list = byId.get(id);
        if (list) list.push(seen);
        else byId.set(id, [seen]);
      }

      const tally: Record<string, number> = {};
      const count = (label: string): void => {
        tally[label] = (tally[label] ?? 0) + 1;
      };
      for (let id = 0; id < REQUESTS; id++) {
        const kind = kinds[id]!;
        const seen = byId.get(id) ?? [];
        const ending = endings.get(id)!;
        const served = faults[id] ?? [];
        const last = served.at(-1);
        count(
          `${kind} ${ending.kind === 'error' ? ending.label : ending.kind === 'status' ? ending.status : ending.kind}`,
        );

        // Safety, from the server's log.
        if (kind === 'POST' || kind === 'PUT+stream') {
          if (seen.length > 1) problems.push(`${kind} ${id} arrived ${seen.length} times`);
        }
        if (seen.length > MAX_ATTEMPTS) problems.push(`${kind} ${id} arrived ${seen.length} times`);
        for (const attempt of seen) {
          if (attempt.method !== requestFor(id, kind).method)
            problems.push(`${id}: method ${attempt.method}`);
          // A body that arrived in full is the caller's, byte for byte (never partial, never reordered).
          if (attempt.bodyComplete && attempt.body !== expectedBody(id, kind)) {
            problems.push(`${kind} ${id}: body ${JSON.stringify(attempt.body.slice(0, 80))}`);
          }
          if (kind === 'POST+key' && attempt.idempotencyKey !== `key-${id}`) {
            problems.push(`POST+key ${id}: key ${String(attempt.idempotencyKey)}`);
          }
        }

        // The policy finished each request once, for a reason its kind allows.
        const events = trail.get(pathOf(id)) ?? [];
        const finishes = events.filter((e) => e.startsWith('finish:'));
        const reason = finishes[0]?.split(':')[2] ?? '';
        const allowed = ending.kind === 'aborted' ? [...REASONS[kind], 'aborted'] : REASONS[kind];
        if (finishes.length !== 1 || !allowed.includes(reason)) {
          problems.push(
            `${kind} ${id}: finished ${JSON.stringify(finishes)} (${served.join(',')}) ${events}`,
          );
        }
        // The caller's ending agrees with what the server did last. A timed-out attempt may reach the
        // server late (its bytes were on the wire): then the server's order is not the client's, and
        // the ending only has to match one of the answers.
        const timeouts = events.filter((e) => e.includes('ERR_JITTERBUG_ATTEMPT_TIMEOUT')).length;
        const timedOut =
          timeouts > 0 || (ending.kind === 'error' && ending.label === 'ERR_JITTERBUG_ATTEMPT_TIMEOUT');
        // After the caller aborted, nothing new was sent: only the attempt in flight may still arrive
        // (and attempts abandoned earlier by their timer, whose bytes were already on the wire).
        const abortAt = abortedAt.get(id);
        if (ending.kind === 'aborted' && abortAt !== undefined) {
          const late = (times[id] ?? []).filter((t) => t > abortAt).length;
          if (late > 1 + timeouts) {
            problems.push(
              `${kind} ${id}: ${late} attempts arrived after the abort (${served.join(',')}) ${events}`,
            );
          }
        }
        const timesOut = driver.appliesAttemptTimeout !== false;
        // An attempt the timer gave up on before the server took it in (a busy machine: the body still
        // being written) leaves nothing in the server's log: the timeout is then the only ending.
        const matches = timedOut
          ? served.length === 0
            ? ending.kind === 'error' && ending.label === 'ERR_JITTERBUG_ATTEMPT_TIMEOUT'
            : served.some((f) => compatible(ending, f, driver.statusesReject, timesOut))
          : compatible(ending, last, driver.statusesReject, timesOut);
        if (!matches) {
          problems.push(`${kind} ${id}: ${JSON.stringify(ending)} after (${served.join(',')}) ${events}`);
        }
      }
      expect(problems.slice(0, 20)).toEqual([]);
      for (const ms of recorder.waits) {
        expect(Number.isFinite(ms) && ms >= 0 && ms <= 60_000 * 1.1).toBe(true);
      }
      const attempts = log.attempts.length;
      const faulty = faults.flat().filter((f) => f !== 'ok').length;
      console.log(
        `[load] ${driver.name}: ${REQUESTS} requests, ${attempts} attempts (${((100 * faulty) / attempts).toFixed(1)} % faults), ${elapsed} ms`,
        JSON.stringify(tally),
      );
    }, 120_000);
  });
};
