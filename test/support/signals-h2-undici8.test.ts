/**
 * Research, recorded as assertions: what undici 8 (`request()` and `fetch()` on an `Agent` with
 * `allowH2`) shows a caller, and a dispatcher interceptor, for each HTTP/2 fault of the scripted
 * server, for a GET, a POST with a string body and a POST with a stream body.
 *
 * What this shows:
 * - undici 8 itself sends a request again, once, below any interceptor, after RST_STREAM
 *   `REFUSED_STREAM` (same connection) and after a GOAWAY below its stream (new connection), when
 *   its body can be replayed: none, or a Buffer (`request()` turns a string into one). `fetch()`
 *   turns every body into a stream, so its POSTs are never replayed. An interceptor sees the
 *   replay only as a second `onRequestStart` (with a new controller) on the same handler.
 * - What is left for a caller: `REFUSED_STREAM` as `ERR_HTTP2_STREAM_ERROR` with
 *   `http2ErrorCode: 7` (provably unprocessed); a GOAWAY below the stream as
 *   `InformationalError('HTTP/2: "GOAWAY" frame received with code 0')`, which undici 8 gives only
 *   to requests above the GOAWAY's last stream id (provably unprocessed, but only by its message);
 *   everything else (a GOAWAY including the stream then a lost connection, RST_STREAM `CANCEL` or
 *   `INTERNAL_ERROR`, a reset mid-body) is ambiguous: the server had the request.
 * - `onRequestSent` / `onBodySent` come after `onRequestStart` on HTTP/2 too, but say only that
 *   the request was handed to the session (a refused stream has them all): on HTTP/2, whether the
 *   server processed a request is told by the refusal, not by what was written. A Node `Readable`
 *   body given to `request()` gets no `onBodySent` at all.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import type { H2Step } from './h2-steps.ts';
import { type ProbeClient, type ProbeRequest, undici8Fetch, undici8Request } from './signal-clients.ts';
import type { DispatchTrace } from './signal-probe.ts';

type Send = 'GET' | 'POST text' | 'POST stream';

const REQUESTS: Record<Send, Omit<ProbeRequest, 'ca'>> = {
  GET: { method: 'GET' },
  'POST text': { method: 'POST', body: 'text' },
  'POST stream': { method: 'POST', body: 'stream' },
};

/** One send as an interceptor sees it: `onRequestStart`, the body callbacks, `onRequestSent`. */
const sent = (client: 'request' | 'fetch', send: Send): string[] =>
  send === 'GET' || (client === 'request' && send === 'POST stream')
    ? ['onRequestStart', 'onRequestSent']
    : ['onRequestStart', 'onBodySent', 'onRequestSent'];
const bodyBytes = (client: 'request' | 'fetch', send: Send): number =>
  sent(client, send).includes('onBodySent') ? 'payload'.length : 0;
const RESPONSE = ['onResponseStarted', 'onResponseStart', 'onResponseData', 'onResponseEnd'];
const BROKEN_BODY = ['onResponseStarted', 'onResponseStart', 'onResponseData', 'onResponseError'];

/** Whether undici 8 replays this request itself (its body is absent or a Buffer). */
const replayable = (client: 'request' | 'fetch', send: Send): boolean =>
  send === 'GET' || (client === 'request' && send === 'POST text');

const REFUSED_STREAM_ERROR = {
  name: 'Error',
  code: 'ERR_HTTP2_STREAM_ERROR',
  message: 'Stream closed with error code NGHTTP2_REFUSED_STREAM',
  http2ErrorCode: 7,
};
const GOAWAY_ERROR = {
  name: 'InformationalError',
  code: 'UND_ERR_INFO',
  message: 'HTTP/2: "GOAWAY" frame received with code 0',
};
const LOST_ERROR = {
  name: 'SocketError',
  code: 'UND_ERR_SOCKET',
  message: 'other side closed',
  http2ErrorCode: 2,
};
const CLOSED_ERROR = {
  name: 'InformationalError',
  code: 'UND_ERR_INFO',
  message: 'HTTP/2: stream closed before the response was complete',
};
const INTERNAL_ERROR = {
  name: 'Error',
  code: 'ERR_HTTP2_STREAM_ERROR',
  message: 'Stream closed with error code NGHTTP2_INTERNAL_ERROR',
  http2ErrorCode: 2,
};
const LENGTH_ERROR = {
  name: 'ResponseContentLengthMismatchError',
  code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  message: 'Response body length does not match content-length header',
};

interface Expected {
  /** The caller's error (unwrapped from fetch's `TypeError`), or the status and body it got. */
  readonly error?: object;
  readonly response?: { readonly status: number; readonly body: string };
  /** Whether fetch reports the error as a failed body read (`terminated`) rather than `fetch failed`. */
  readonly terminated?: boolean;
  readonly events: string[];
  readonly bodyBytesSent: number;
  /** The server's log: processed (true) or refused (false), per request, in order. */
  readonly processed: boolean[];
  /** For two requests: whether the second came on a new connection. */
  readonly newConnection?: boolean;
}

interface Case {
  readonly name: string;
  readonly steps: readonly H2Step[];
  readonly expect: (client: 'request' | 'fetch', send: Send) => Expected;
}

const ANSWER: H2Step = { status: 200, body: 'second' };

const CASES: readonly Case[] = [
  {
    name: 'RST_STREAM REFUSED_STREAM once',
    steps: [{ destroy: 'before-headers', rst: 'REFUSED_STREAM' }, ANSWER],
    expect: (client, send) =>
      replayable(client, send)
        ? {
            response: { status: 200, body: 'second' },
            events: [...sent(client, send), ...sent(client, send), ...RESPONSE],
            bodyBytesSent: 2 * bodyBytes(client, send),
            processed: [false, true],
            newConnection: false,
          }
        : {
            error: REFUSED_STREAM_ERROR,
            events: [...sent(client, send), 'onResponseError'],
            bodyBytesSent: bodyBytes(client, send),
            processed: [false],
          },
  },
  {
    name: 'RST_STREAM REFUSED_STREAM every time',
    steps: [{ destroy: 'before-headers', rst: 'REFUSED_STREAM' }],
    expect: (client, send) => {
      const sends = replayable(client, send) ? 2 : 1;
      return {
        error: REFUSED_STREAM_ERROR,
        events: [...Array.from({ length: sends }, () => sent(client, send)).flat(), 'onResponseError'],
        bodyBytesSent: sends * bodyBytes(client, send),
        processed: Array(sends).fill(false),
      };
    },
  },
  {
    name: 'GOAWAY below the stream once',
    steps: [{ destroy: 'before-headers', goaway: 'below' }, ANSWER],
    expect: (client, send) =>
      replayable(client, send)
        ? {
            response: { status: 200, body: 'second' },
            events: [...sent(client, send), ...sent(client, send), ...RESPONSE],
            bodyBytesSent: 2 * bodyBytes(client, send),
            processed: [false, true],
            newConnection: true,
          }
        : {
            error: GOAWAY_ERROR,
            events: [...sent(client, send), 'onResponseError'],
            bodyBytesSent: bodyBytes(client, send),
            processed: [false],
          },
  },
  {
    name: 'GOAWAY below the stream every time',
    steps: [{ destroy: 'before-headers', goaway: 'below' }],
    expect: (client, send) => {
      const sends = replayable(client, send) ? 2 : 1;
      return {
        error: GOAWAY_ERROR,
        events: [...Array.from({ length: sends }, () => sent(client, send)).flat(), 'onResponseError'],
        bodyBytesSent: sends * bodyBytes(client, send),
        processed: Array(sends).fill(false),
      };
    },
  },
  {
    name: 'GOAWAY including the stream, then the connection lost',
    steps: [{ destroy: 'before-headers', goaway: 'including' }],
    expect: (client, send) => ({
      error: LOST_ERROR,
      events: [...sent(client, send), 'onResponseError'],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
  {
    name: 'GOAWAY including the stream, then the answer',
    steps: [{ status: 200, body: 'answered', goaway: 'including' }],
    expect: (client, send) => ({
      response: { status: 200, body: 'answered' },
      events: [...sent(client, send), ...RESPONSE],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
  {
    name: 'RST_STREAM CANCEL before the headers',
    steps: [{ destroy: 'before-headers', rst: 'CANCEL' }],
    expect: (client, send) => ({
      // request() with a stream body still sending: undici sees the remote half-close first.
      error:
        client === 'request' && send === 'POST stream'
          ? { ...CLOSED_ERROR, message: 'HTTP/2: stream half-closed (remote)' }
          : CLOSED_ERROR,
      events: [...sent(client, send), 'onResponseError'],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR before the headers',
    steps: [{ destroy: 'before-headers', rst: 'INTERNAL_ERROR' }],
    expect: (client, send) => ({
      error: INTERNAL_ERROR,
      events: [...sent(client, send), 'onResponseError'],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
  {
    name: 'RST_STREAM INTERNAL_ERROR mid-body',
    steps: [{ destroy: 'mid-body', rst: 'INTERNAL_ERROR', sentBytes: 10, declaredBytes: 100 }],
    expect: (client, send) => ({
      error: { ...LENGTH_ERROR, http2ErrorCode: 2 },
      terminated: true,
      events: [...sent(client, send), ...BROKEN_BODY],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
  {
    name: 'RST_STREAM CANCEL mid-body',
    steps: [{ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 10, declaredBytes: 100 }],
    expect: (client, send) => ({
      error: LENGTH_ERROR,
      terminated: true,
      events: [...sent(client, send), ...BROKEN_BODY],
      bodyBytesSent: bodyBytes(client, send),
      processed: [true],
    }),
  },
];

const CLIENTS: readonly (readonly ['request' | 'fetch', ProbeClient])[] = [
  ['request', undici8Request],
  ['fetch', undici8Fetch],
];
const SENDS = Object.keys(REQUESTS) as Send[];

describe('HTTP/2 signals: undici 8', () => {
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
    it.each(CLIENTS.flatMap(([name, send]) => SENDS.map((s) => [`${name}() ${s}`, name, send, s] as const)))(
      '%s',
      async (_label, clientName, client, send) => {
        server.route('/x', fault.steps);
        const expected = fault.expect(clientName, send);
        const outcome = await client(`${server.url}/x`, { ...REQUESTS[send], ca: server.ca });

        if (expected.response) {
          expect(outcome).toMatchObject(expected.response);
        } else if (clientName === 'request') {
          expect(outcome.error).toEqual(expected.error);
        } else {
          const message = expected.terminated ? 'terminated' : 'fetch failed';
          expect(outcome.error).toEqual({ name: 'TypeError', message, cause: expected.error });
        }
        expect(outcome.traces).toEqual([
          { events: expected.events, bodyBytesSent: expected.bodyBytesSent },
        ] satisfies DispatchTrace[]);
        const seen = server.seen('/x');
        expect(seen.map((r) => r.processed)).toEqual(expected.processed);
        if (expected.newConnection !== undefined) {
          expect(seen[1]!.connection !== seen[0]!.connection).toBe(expected.newConnection);
        }
      },
    );
  });
});
