/**
 * Research, recorded as assertions: what axios 1.21's http adapter shows over HTTP/2
 * (`httpVersion: 2`, `http2Options.ca`; it speaks HTTP/2 through `node:http2` with a session
 * cache of its own, and ignores `httpsAgent` there) for each HTTP/2 fault of the scripted server.
 *
 * What this shows:
 * - `REFUSED_STREAM` and a GOAWAY below the stream look the same (Node's http2 client closes
 *   streams above the GOAWAY's last stream id as `REFUSED_STREAM`): an `AxiosError` with code
 *   `ERR_HTTP2_STREAM_ERROR` whose message names `NGHTTP2_REFUSED_STREAM` — provably unprocessed,
 *   but only by the message (no numeric code). Nothing is replayed.
 * - RST_STREAM `CANCEL` before the headers, and a connection lost before them (with or without a
 *   GOAWAY first), never settle: no error, no response, and axios' own `timeout` does not fire.
 *   Only the caller's `signal` ends the request.
 * - RST_STREAM `CANCEL` in the middle of a body is taken for its end: a 200 with 10 of the 100
 *   bytes the response declared.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import type { H2Step } from './h2-steps.ts';
import { axiosHttp2, type ProbeOutcome } from './signal-clients.ts';

const axiosStreamError = (code: string) => {
  const message = `Stream closed with error code NGHTTP2_${code}`;
  return {
    name: 'AxiosError',
    code: 'ERR_HTTP2_STREAM_ERROR',
    message,
    cause: { name: 'Error', code: 'ERR_HTTP2_STREAM_ERROR', message },
  };
};

interface Case {
  readonly name: string;
  readonly steps: readonly H2Step[];
  readonly error?: object;
  readonly response?: { readonly status: number; readonly body: string };
  readonly processed: boolean[];
}

const SETTLED: readonly Case[] = [
  {
    name: 'RST_STREAM REFUSED_STREAM (not replayed)',
    steps: [{ destroy: 'before-headers', rst: 'REFUSED_STREAM' }, { status: 200 }],
    error: axiosStreamError('REFUSED_STREAM'),
    processed: [false],
  },
  {
    name: 'GOAWAY below the stream: reported as REFUSED_STREAM (not replayed)',
    steps: [{ destroy: 'before-headers', goaway: 'below' }, { status: 200 }],
    error: axiosStreamError('REFUSED_STREAM'),
    processed: [false],
  },
  {
    name: 'GOAWAY including the stream, then the answer',
    steps: [{ status: 200, body: 'answered', goaway: 'including' }],
    response: { status: 200, body: 'answered' },
    processed: [true],
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR before the headers',
    steps: [{ destroy: 'before-headers', rst: 'INTERNAL_ERROR' }],
    error: axiosStreamError('INTERNAL_ERROR'),
    processed: [true],
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR mid-body',
    steps: [{ destroy: 'mid-body', rst: 'INTERNAL_ERROR', sentBytes: 10, declaredBytes: 100 }],
    error: axiosStreamError('INTERNAL_ERROR'),
    processed: [true],
  },
  {
    name: 'RST_STREAM CANCEL mid-body: a short body taken as whole',
    steps: [{ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 10, declaredBytes: 100 }],
    response: { status: 200, body: 'b'.repeat(10) },
    processed: [true],
  },
];

const HANGING: readonly { readonly name: string; readonly steps: readonly H2Step[] }[] = [
  { name: 'RST_STREAM CANCEL before the headers', steps: [{ destroy: 'before-headers', rst: 'CANCEL' }] },
  { name: 'connection lost before the headers', steps: [{ destroy: 'before-headers' }] },
  {
    name: 'GOAWAY including the stream, then the connection lost',
    steps: [{ destroy: 'before-headers', goaway: 'including' }],
  },
];

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('HTTP/2 signals: axios http adapter (httpVersion 2)', () => {
  let server: H2ScriptedServer;
  beforeAll(async () => {
    server = await startH2ScriptedServer();
  });
  afterEach(async () => {
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  describe.each(SETTLED.map((c) => [c.name, c] as const))('%s', (_name, fault) => {
    it.each(['GET', 'POST text', 'POST stream'] as const)('%s', async (send) => {
      server.route('/x', fault.steps);
      const outcome = await axiosHttp2(`${server.url}/x`, {
        method: send === 'GET' ? 'GET' : 'POST',
        ...(send === 'GET' ? {} : { body: send === 'POST text' ? 'text' : 'stream' }),
        ca: server.ca,
      });
      if (fault.response) expect(outcome).toMatchObject(fault.response);
      else expect(outcome.error).toEqual(fault.error);
      expect(server.seen('/x').map((r) => r.processed)).toEqual(fault.processed);
    });
  });

  it.each(HANGING.map((c) => [c.name, c.steps] as const))(
    '%s: never settles, its timeout does not fire; only the signal ends it',
    async (_name, steps) => {
      server.route('/x', steps);
      const controller = new AbortController();
      let settled: ProbeOutcome | undefined;
      const pending = axiosHttp2(`${server.url}/x`, {
        method: 'POST',
        body: 'text',
        ca: server.ca,
        timeoutMs: 100,
        signal: controller.signal,
      }).then((outcome) => {
        settled = outcome;
        return outcome;
      });
      await expect.poll(() => server.seen('/x').length).toBe(1);
      // Ten times the timeout: axios' timer, had it been armed, was due long before this one.
      await sleep(1_000);
      expect(settled).toBeUndefined();
      controller.abort();
      expect((await pending).error).toEqual({
        name: 'CanceledError',
        code: 'ERR_CANCELED',
        message: 'canceled',
      });
      expect(server.seen('/x').map((r) => r.processed)).toEqual([true]);
    },
  );
});
