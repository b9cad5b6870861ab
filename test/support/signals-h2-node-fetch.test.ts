/**
 * Research, recorded as assertions: what Node 24's global fetch (its bundled undici 7) shows over
 * HTTP/2 through an undici 7 `Agent` with `allowH2` (Node's fetch refuses undici 8 dispatchers),
 * to its caller and to a dispatcher interceptor, for each HTTP/2 fault of the scripted server.
 *
 * What this shows:
 * - undici 7 replays nothing itself, and fails every stream of a connection that gets a GOAWAY,
 *   whatever its last stream id: a request the server goes on to answer (a graceful GOAWAY
 *   including it) fails exactly like one it refused (`SocketError('HTTP/2: "GOAWAY" frame received
 *   with code 0')`). So a GOAWAY is ambiguous here; only `REFUSED_STREAM` (in the message of an
 *   `ERR_HTTP2_STREAM_ERROR`, with no `http2ErrorCode`) proves a request unprocessed.
 * - RST_STREAM `CANCEL` in the middle of a body is taken for its end: the caller gets a 200 with
 *   10 of the 100 bytes the response declared, and no error.
 * - A new-API interceptor gets `onRequestStart` but never `onBodySent` / `onRequestSent`: undici 7
 *   turns its handler back into a legacy one (`UnwrapHandler`) that does not pass them on. A
 *   legacy handler dispatched on the same agent does get them.
 */
import type { Dispatcher } from 'undici7';
import { Agent } from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import type { H2Step } from './h2-steps.ts';
import { nodeFetchUndici7 } from './signal-clients.ts';
import { trustingAgentOptions } from './tls.ts';

const RESPONSE = ['onResponseStarted', 'onResponseStart', 'onResponseData', 'onResponseEnd'];
const BROKEN_BODY = ['onResponseStarted', 'onResponseStart', 'onResponseData', 'onResponseError'];
const GOAWAY = {
  name: 'SocketError',
  code: 'UND_ERR_SOCKET',
  message: 'HTTP/2: "GOAWAY" frame received with code 0',
};
const streamError = (code: string) => ({
  name: 'Error',
  code: 'ERR_HTTP2_STREAM_ERROR',
  message: `Stream closed with error code NGHTTP2_${code}`,
});

interface Case {
  readonly name: string;
  readonly steps: readonly H2Step[];
  /** `fetch failed` with this cause, `terminated` (a body that broke) with it, or a response. */
  readonly failed?: object;
  readonly terminated?: object;
  readonly response?: { readonly status: number; readonly body: string };
  readonly events: string[];
  readonly processed: boolean[];
}

const CASES: readonly Case[] = [
  {
    name: 'RST_STREAM REFUSED_STREAM (not replayed)',
    steps: [{ destroy: 'before-headers', rst: 'REFUSED_STREAM' }, { status: 200 }],
    failed: streamError('REFUSED_STREAM'),
    events: ['onRequestStart', 'onResponseError'],
    processed: [false],
  },
  {
    name: 'GOAWAY below the stream (not replayed)',
    steps: [{ destroy: 'before-headers', goaway: 'below' }, { status: 200 }],
    failed: GOAWAY,
    events: ['onRequestStart', 'onResponseError'],
    processed: [false],
  },
  {
    name: 'GOAWAY including the stream, then the connection lost',
    steps: [{ destroy: 'before-headers', goaway: 'including' }],
    failed: GOAWAY,
    events: ['onRequestStart', 'onResponseError'],
    processed: [true],
  },
  {
    name: 'GOAWAY including the stream, then the answer: failed all the same',
    steps: [{ status: 200, body: 'answered', goaway: 'including' }],
    failed: GOAWAY,
    events: ['onRequestStart', 'onResponseError'],
    processed: [true],
  },
  {
    name: 'RST_STREAM CANCEL before the headers',
    steps: [{ destroy: 'before-headers', rst: 'CANCEL' }],
    failed: {
      name: 'InformationalError',
      code: 'UND_ERR_INFO',
      message: 'HTTP/2: stream closed before the response was complete',
    },
    events: ['onRequestStart', 'onResponseError'],
    processed: [true],
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR before the headers',
    steps: [{ destroy: 'before-headers', rst: 'INTERNAL_ERROR' }],
    failed: streamError('INTERNAL_ERROR'),
    events: ['onRequestStart', 'onResponseError'],
    processed: [true],
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR mid-body',
    steps: [{ destroy: 'mid-body', rst: 'INTERNAL_ERROR', sentBytes: 10, declaredBytes: 100 }],
    terminated: streamError('INTERNAL_ERROR'),
    events: ['onRequestStart', ...BROKEN_BODY],
    processed: [true],
  },
  {
    name: 'RST_STREAM CANCEL mid-body: a short body taken as whole',
    steps: [{ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 10, declaredBytes: 100 }],
    response: { status: 200, body: 'b'.repeat(10) },
    events: ['onRequestStart', ...RESPONSE],
    processed: [true],
  },
  {
    name: 'connection lost before the headers',
    steps: [{ destroy: 'before-headers' }],
    failed: { name: 'SocketError', code: 'UND_ERR_SOCKET', message: 'other side closed' },
    events: ['onRequestStart', 'onResponseError'],
    processed: [true],
  },
];

describe('HTTP/2 signals: Node fetch through an undici 7 Agent', () => {
  let server: H2ScriptedServer;
  beforeAll(async () => {
    server = await startH2ScriptedServer();
  });
  afterEach(async () => {
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  describe.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, fault) => {
    it.each(['GET', 'POST text', 'POST stream'] as const)('%s', async (send) => {
      server.route('/x', fault.steps);
      const outcome = await nodeFetchUndici7(`${server.url}/x`, {
        method: send === 'GET' ? 'GET' : 'POST',
        ...(send === 'GET' ? {} : { body: send === 'POST text' ? 'text' : 'stream' }),
        ca: server.ca,
      });
      if (fault.response) expect(outcome).toMatchObject(fault.response);
      else if (fault.failed)
        expect(outcome.error).toEqual({ name: 'TypeError', message: 'fetch failed', cause: fault.failed });
      else
        expect(outcome.error).toEqual({ name: 'TypeError', message: 'terminated', cause: fault.terminated });
      expect(outcome.traces).toEqual([{ events: fault.events, bodyBytesSent: 0 }]);
      expect(server.seen('/x').map((r) => r.processed)).toEqual(fault.processed);
    });
  });

  it('passes onBodySent and onRequestSent to a legacy handler, not to a new-API one', async () => {
    const agent = new Agent(trustingAgentOptions(server.ca, { allowH2: true }));
    const dispatch = (handler: Record<string, (...args: never[]) => unknown>): Promise<string[]> =>
      new Promise((resolve) => {
        const events: string[] = [];
        const observed =
          (name: string) =>
          (..._args: unknown[]) => {
            events.push(name);
            if (
              name === 'onComplete' ||
              name === 'onError' ||
              name === 'onResponseEnd' ||
              name === 'onResponseError'
            )
              resolve(events);
            return true;
          };
        const shaped = Object.fromEntries(Object.keys(handler).map((name) => [name, observed(name)]));
        agent.dispatch(
          { origin: server.url, path: '/x', method: 'POST', body: 'payload' },
          shaped as unknown as Dispatcher.DispatchHandler,
        );
      });
    const legacy = {
      onConnect: 0,
      onHeaders: 0,
      onData: 0,
      onComplete: 0,
      onError: 0,
      onBodySent: 0,
      onRequestSent: 0,
    };
    const modern = {
      onRequestStart: 0,
      onResponseStart: 0,
      onResponseData: 0,
      onResponseEnd: 0,
      onResponseError: 0,
      onBodySent: 0,
      onRequestSent: 0,
    };
    const asHandler = (names: object) =>
      Object.fromEntries(Object.keys(names).map((n) => [n, () => undefined])) as Record<
        string,
        () => unknown
      >;
    try {
      expect(await dispatch(asHandler(legacy))).toEqual([
        'onConnect',
        'onBodySent',
        'onRequestSent',
        'onHeaders',
        'onData',
        'onComplete',
      ]);
      expect(await dispatch(asHandler(modern))).toEqual([
        'onRequestStart',
        'onResponseStart',
        'onResponseData',
        'onResponseEnd',
      ]);
    } finally {
      await agent.close();
    }
  });
});
