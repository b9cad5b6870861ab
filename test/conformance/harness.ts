/**
 * What every conformance file shares: each driver run over plain HTTP/1.1, then over the transports
 * it lists (`transports`), against a scripted server of that transport, with a client made for the
 * scenario and closed after it. A scenario registers for the transports where it says something new
 * (see `conformance.test.ts`); a file of opt-in features registers for `http` alone.
 *
 * Waits are injected (recorded, then resolved at once) unless a scenario needs a real one. No client
 * may leave a connection behind once it is closed.
 */
import type { RetryPolicyOptions } from '@jitterbug/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep as realSleep } from '../../packages/core/src/sleep.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from '../support/h2-scripted-server.ts';
import { type ScriptedServer, startScriptedServer } from '../support/scripted-server.ts';
import { startTlsScriptedServer } from '../support/tls-scripted-server.ts';
import type { ConformanceClient, ConformanceDriver, ConformanceResult, TransportName } from './driver.ts';

const TRANSPORT_NAMES: Record<TransportName, string> = { http: 'HTTP/1.1', tls: 'TLS', h2: 'HTTP/2' };

/** One driver over one transport, as a scenario sees it. */
export interface Run {
  readonly driver: ConformanceDriver;
  readonly transport: TransportName;
  /** The scripted server (set once the file's `beforeAll` ran). */
  readonly server: ScriptedServer;
  /** The server, when it is the HTTP/2 one. */
  readonly h2: H2ScriptedServer | undefined;
  /** The waits the last client made with `client()` asked for, in order. */
  readonly waits: number[];
  /** Clients closed after the scenario: push those made with `create`. */
  readonly clients: ConformanceClient[];
  /** Registers a scenario for the runs over `transports`. */
  scenario(transports: readonly TransportName[], name: string, test: () => Promise<void>): void;
  /** A client of `url` with exactly `options`, over the run's transport (not closed by the harness). */
  create(url: string, options: RetryPolicyOptions): Promise<ConformanceClient>;
  /** A client of the scripted server: recorded waits, no jitter, short backoff, then `extra`. */
  client(extra?: RetryPolicyOptions): Promise<ConformanceClient>;
  /** The same, of another server. */
  clientAt(url: string, extra?: RetryPolicyOptions): Promise<ConformanceClient>;
  /** The final status as this client hands it over (a response, or an `http-error` where statuses reject). */
  expectFinalStatus(result: ConformanceResult, status: number): void;
  /** Aborts `pending`'s request: it must end with the client's abort error for `reason`, at once. */
  abortPromptly(
    pending: Promise<ConformanceResult>,
    controller: AbortController,
    reason: unknown,
  ): Promise<ConformanceResult>;
}

export const statusOf = (result: ConformanceResult): number | undefined => {
  const o = result.outcome;
  return o.kind === 'error' ? undefined : o.status;
};

/** The error the caller got, and its causes, outermost first. */
export const errorChain = (result: ConformanceResult): unknown[] => {
  const chain: unknown[] = [];
  for (let e: unknown = result.outcome.kind === 'error' ? result.outcome.error : undefined; e; ) {
    chain.push(e);
    e = (e as { cause?: unknown }).cause;
  }
  return chain;
};

/**
 * Runs `register`'s scenarios against every driver over plain HTTP, then (with `transports`) against
 * each over the transports it lists.
 */
export const describeRuns = (
  drivers: readonly ConformanceDriver[],
  register: (run: Run) => void,
  { transports = false }: { transports?: boolean } = {},
): void => {
  const runs = [
    ...drivers.map((d) => [d.name, d, 'http'] as const),
    ...(transports
      ? drivers.flatMap((d) =>
          (d.transports ?? []).map((t) => [`${d.name} over ${TRANSPORT_NAMES[t]}`, d, t] as const),
        )
      : []),
  ];
  describe.each(runs)('%s', (_name, driver: ConformanceDriver, transport: TransportName) => {
    let server: ScriptedServer | undefined;
    let h2: H2ScriptedServer | undefined;
    let ca: string | undefined;
    const clients: ConformanceClient[] = [];
    const waits: number[] = [];

    const create = async (url: string, options: RetryPolicyOptions) =>
      driver.create(url, options, ca ? { name: transport, ca } : undefined);
    const clientAt = async (url: string, extra: RetryPolicyOptions = {}): Promise<ConformanceClient> => {
      waits.length = 0;
      const c = await create(url, {
        random: () => 0,
        sleep: (ms, signal) => {
          waits.push(ms);
          return realSleep(0, signal);
        },
        backoff: { strategy: 'full', baseMs: 1, capMs: 5 },
        ...extra,
      });
      clients.push(c);
      return c;
    };

    const run: Run = {
      driver,
      transport,
      get server() {
        if (!server) throw new Error('the scripted server starts in beforeAll');
        return server;
      },
      get h2() {
        return h2;
      },
      waits,
      clients,
      scenario(only, name, test) {
        if (only.includes(transport)) it(name, test);
      },
      create,
      clientAt,
      client: (extra) => clientAt(run.server.url, extra),
      expectFinalStatus(result, status) {
        expect(result.outcome.kind).toBe(status >= 400 && driver.statusesReject ? 'http-error' : 'response');
        expect(statusOf(result)).toBe(status);
      },
      async abortPromptly(pending, controller, reason) {
        const abortedAt = Date.now();
        controller.abort(reason);
        const result = await pending;
        expect(result.outcome.kind).toBe('error');
        if (result.outcome.kind === 'error') expect(driver.isAbort(result.outcome.error, reason)).toBe(true);
        // Generous against the waits an abort cancels (30 s, 2 s): the caller is released at once.
        expect(Date.now() - abortedAt).toBeLessThan(5_000);
        return result;
      },
    };

    beforeAll(async () => {
      if (transport === 'h2') {
        h2 = await startH2ScriptedServer();
        server = h2;
        ca = h2.ca;
      } else if (transport === 'tls') {
        const tls = await startTlsScriptedServer();
        server = tls;
        ca = tls.ca;
      } else {
        server = await startScriptedServer();
      }
    });
    afterEach(async () => {
      for (const c of clients.splice(0)) await c.close();
      waits.length = 0;
      // No client may leave a connection behind once it is closed.
      expect(await run.server.waitForIdle(3_000)).toBe(0);
      run.server.reset();
    });
    afterAll(() => server?.close());

    register(run);
  });
};
