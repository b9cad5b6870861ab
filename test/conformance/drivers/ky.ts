/**
 * Conformance drivers for `@jitterbug/ky`, on ky 2 and ky 1 (`ky1`, an alias of ky 1.14). ky uses
 * the global `fetch`; each client gets its own undici 7 `Agent` (through ky's pass-through
 * `dispatcher` option, accepted by Node's bundled undici) so that `close()` can close its
 * connections, and no ky `timeout`. ky throws `HTTPError` for a final status >= 400 and hands a response over before its
 * body is read. Retry info is read the documented way: `getRetryInfo(response)` or
 * `getRetryInfo(error)`.
 */
import { AttemptTimeoutError } from '@jitterbug/core';
import { getRetryInfo, kyRetry } from '@jitterbug/ky';
import ky2, { type Options } from 'ky';
import ky1 from 'ky1';
import { Agent } from 'undici7';
import {
  type ConformanceBody,
  type ConformanceClient,
  type ConformanceDriver,
  type ConformanceRequest,
  type ConformanceResult,
  type DriverOptions,
  policyOf,
} from '../driver.ts';
import { resumeErrorDeclared } from './overlong.ts';
import { readOutcome } from './read-body.ts';

type KyLike = typeof ky2;

const encodeBody = (body: ConformanceBody | undefined): Options => {
  if (body === undefined) return {};
  switch (body.kind) {
    case 'text':
      return { body: body.value, headers: { 'content-type': 'text/plain;charset=UTF-8' } };
    case 'json':
      return { json: body.value };
    case 'bytes':
      return {
        body: body.value as Uint8Array<ArrayBuffer>,
        headers: { 'content-type': 'application/octet-stream' },
      };
    case 'form':
      return { body: body.value };
    case 'stream': {
      const encoder = new TextEncoder();
      const chunks = body.chunks;
      return {
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
          },
        }),
      };
    }
  }
};

const isHttpError = (error: unknown): error is Error & { response: Response } =>
  error instanceof Error && error.name === 'HTTPError' && 'response' in error;

const create = (kyModule: KyLike, baseUrl: string, options: DriverOptions): ConformanceClient => {
  const agent = new Agent();
  // ky 1's option types differ from ky 2's; both take the same runtime options. ky passes the
  // `dispatcher` it does not know on to fetch, which is jitterbug's engine, which passes it on.
  // ky's own `timeout` (10 s by default) is the run's deadline under kyRetry: without it, the
  // scenarios' long waits behave as in every other client (packages/ky/test/ky-timeout.test.ts
  // tests the deadline).
  const api = kyModule.create({
    ...kyRetry(policyOf(options)),
    dispatcher: agent,
    timeout: false,
  } as Options);
  return {
    async send(request: ConformanceRequest): Promise<ConformanceResult> {
      const encoded = encodeBody(request.body);
      const url = new URL(request.path, baseUrl).href;
      let response: Response;
      try {
        response = await api(url, {
          ...encoded,
          method: request.method,
          headers: { ...(encoded.headers as Record<string, string> | undefined), ...request.headers },
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        if (isHttpError(error)) {
          // ky 1 leaves an HTTPError's body unread (ky 2 reads it): a caller must read or cancel it,
          // or its connection stays busy until the server closes it.
          if (!error.response.bodyUsed) await error.response.body?.cancel().catch(() => {});
          return {
            outcome: { kind: 'http-error', status: error.response.status, error },
            info: getRetryInfo(error),
          };
        }
        return { outcome: { kind: 'error', error }, info: getRetryInfo(error) };
      }
      const info = getRetryInfo(response);
      return {
        outcome: await readOutcome(response.status, new Headers(response.headers), response.body),
        info,
      };
    },
    close: () => agent.close(),
  };
};

/** ky 2 wraps fetch's network `TypeError` in its `NetworkError`; ky 1 hands fetch's over as it is. */
const isNetworkError = (error: unknown): boolean => {
  const e = error as { name?: string; message?: string; cause?: unknown } | null;
  if (e?.name === 'NetworkError') return (e.cause as Error | undefined)?.name === 'TypeError';
  return error instanceof TypeError && e?.message === 'fetch failed';
};

const driver = (name: string, kyModule: KyLike): ConformanceDriver => ({
  name,
  statusesReject: true,
  // Node's fetch through an undici 7 agent: see the field.
  abortKeepsSocket: true,
  buffersResponses: false,
  isNetworkError,
  isAbort: (error, reason) => error === reason,
  // ky's own TimeoutError, as without jitterbug, with the core's as its cause.
  isAttemptTimeout: (error) =>
    (error as Error | null)?.name === 'TimeoutError' &&
    (error as { cause?: unknown }).cause instanceof AttemptTimeoutError,
  overlongBodyDeclared: resumeErrorDeclared,
  // The fetch engine's, as for withRetry (see `fetch.ts`).
  signals: { handshake: false, refusedStream: false, goawayBelow: false },
  create: (baseUrl, options) => create(kyModule, baseUrl, options),
});

/** ky 2 and ky 1 (`ky1`, an alias of ky 1.14) with `kyRetry`: the same adapter serves both majors. */
export const kyDrivers: readonly ConformanceDriver[] = [
  driver('ky 2', ky2),
  driver('ky 1', ky1 as unknown as KyLike),
];
