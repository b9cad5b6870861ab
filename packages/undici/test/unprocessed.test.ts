/**
 * Transparent retries through undici: what the interceptor reads as proof that the server never
 * processed a request (see `src/unprocessed.ts`), against real servers on 127.0.0.1 (HTTP/2 and
 * HTTP/1.1 over TLS with a certificate made at test time, endpoints that fail the connection), for
 * undici 8's `request()` and `fetch()` and Node's global fetch through an undici 7 agent. Each
 * request is a POST without an Idempotency-Key unless it says otherwise: retried only on proof.
 */
import { DEFAULT_ERROR_CODES, type RetryInfo, type RetryPolicyOptions } from '@jitterbug/core';
import * as undici8 from 'undici';
import * as undici7 from 'undici7';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrokenListener,
  refusedPort,
  startHandshakeResetListener,
  startSilentListener,
} from '../../../test/support/broken-listeners.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from '../../../test/support/h2-scripted-server.ts';
import type { H2Step } from '../../../test/support/h2-steps.ts';
import { trustingAgentOptions } from '../../../test/support/tls.ts';
import { startTlsScriptedServer, type TlsScriptedServer } from '../../../test/support/tls-scripted-server.ts';
import { sleep as realSleep } from '../../core/src/sleep.ts';
import { retryInterceptor } from '../src/index.ts';

type ClientName = 'undici 8 request()' | 'undici 8 fetch()' | 'Node fetch + undici 7 Agent';
const CLIENTS: readonly ClientName[] = [
  'undici 8 request()',
  'undici 8 fetch()',
  'Node fetch + undici 7 Agent',
];

interface Sent {
  readonly status?: number;
  readonly body?: string;
  /** The error as undici made it (fetch's `TypeError` unwrapped). */
  readonly error?: { readonly code: string | undefined; readonly message: string };
  readonly info: RetryInfo | undefined;
}

interface Send {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** Options for the policy, over instant waits and no jitter. */
  readonly policy?: RetryPolicyOptions;
  /** undici's connect options (a timeout, the certificate to trust). */
  readonly connect?: { readonly ca?: string; readonly timeout?: number };
}

const agents: { close(): Promise<unknown>; destroy(): Promise<unknown> }[] = [];

/** Sends one request (a POST with the body `payload` by default) with jitterbug on an agent of its own. */
const send = async (client: ClientName, url: string, request: Send = {}): Promise<Sent> => {
  const finished: RetryInfo[] = [];
  const interceptor = retryInterceptor({
    random: () => 0,
    sleep: (_ms, signal) => realSleep(0, signal),
    onFinish: (info) => {
      finished.push(info);
    },
    ...request.policy,
  });
  const options = { allowH2: true, connect: { ...request.connect } };
  const undici = client === 'Node fetch + undici 7 Agent' ? undici7 : undici8;
  const agent = new undici.Agent(
    request.connect?.ca ? trustingAgentOptions(request.connect.ca, options) : options,
  );
  agents.push(agent);
  const dispatcher = (agent as undici8.Agent).compose(interceptor);
  const method = request.method ?? 'POST';
  const init = { method, headers: request.headers ?? {}, ...(method === 'POST' ? { body: 'payload' } : {}) };
  try {
    if (client === 'undici 8 request()') {
      const res = await undici8.request(url, { ...init, dispatcher });
      return { status: res.statusCode, body: await res.body.text(), info: finished[0] };
    }
    const run = (client === 'undici 8 fetch()' ? undici8.fetch : globalThis.fetch) as (
      url: string,
      init: object,
    ) => Promise<Response>;
    const res = await run(url, { ...init, dispatcher });
    return { status: res.status, body: await res.text(), info: finished[0] };
  } catch (error) {
    const e = (client === 'undici 8 request()' ? error : ((error as { cause?: unknown }).cause ?? error)) as {
      code?: string;
      message: string;
    };
    return { error: { code: e.code, message: e.message }, info: finished[0] };
  }
};

/** Closes every agent (before a server checks that no connection is left). */
const destroyAgents = async (): Promise<void> => {
  for (const agent of agents.splice(0)) await agent.destroy();
};

describe('HTTP/2: a refusal is proof, a reset is not', () => {
  let server: H2ScriptedServer;
  beforeAll(async () => {
    server = await startH2ScriptedServer();
  });
  afterEach(async () => {
    await destroyAgents();
    expect(await server.waitForIdle(3_000)).toBe(0);
    server.reset();
  });
  afterAll(() => server.close());

  const post = (client: ClientName, steps: readonly H2Step[], request: Send = {}) => {
    server.route('/x', steps);
    return send(client, `${server.url}/x`, { ...request, connect: { ca: server.ca } });
  };
  const processed = () => server.seen('/x').map((r) => r.processed);

  // undici 8 sends a request whose body it can replay (a Buffer: request()'s string, fetch's body
  // once the interceptor has read it ahead) again once itself, below the interceptor, after a
  // REFUSED_STREAM or a GOAWAY below its stream; undici 7 replays nothing.
  const REFUSED: H2Step = { destroy: 'before-headers', rst: 'REFUSED_STREAM' };
  const BELOW: H2Step = { destroy: 'before-headers', goaway: 'below' };
  const ANSWER: H2Step = { status: 200, body: 'done' };
  const undiciReplays = (client: ClientName) => client !== 'Node fetch + undici 7 Agent';

  it.each(CLIENTS)(
    '%s: RST_STREAM REFUSED_STREAM: a POST retried transparently, processed once',
    async (client) => {
      const sent = await post(client, [REFUSED, REFUSED, ANSWER]);
      expect(sent).toMatchObject({ status: 200, body: 'done' });
      expect(processed()).toEqual([false, false, true]);
      // Seen by the interceptor: one refusal after undici's own replay, else both.
      const retries = undiciReplays(client) ? ['unprocessed'] : ['unprocessed', 'unprocessed'];
      expect(sent.info).toMatchObject({ attempts: retries.length + 1, retries, outcome: 'success' });
    },
  );

  it.each(CLIENTS)('%s: REFUSED_STREAM every time: transparentRetries, then the refusal', async (client) => {
    const sent = await post(client, [REFUSED]);
    expect(sent.error).toEqual({
      code: 'ERR_HTTP2_STREAM_ERROR',
      message: 'Stream closed with error code NGHTTP2_REFUSED_STREAM',
    });
    expect(processed()).toEqual(Array((undiciReplays(client) ? 2 : 1) * 3).fill(false));
    // The last refusal is past transparentRetries (2): the method rule decides, and says no to a POST.
    expect(sent.info).toMatchObject({
      attempts: 3,
      retries: ['unprocessed', 'unprocessed'],
      reason: 'method-not-idempotent',
    });
  });

  it.each(CLIENTS)('%s: a GOAWAY below the stream: proof on undici 8 only', async (client) => {
    const sent = await post(client, [BELOW, BELOW, ANSWER]);
    if (client === 'Node fetch + undici 7 Agent') {
      // undici 7 fails every stream of the connection alike, one the server answers too.
      expect(sent.error).toEqual({
        code: 'UND_ERR_SOCKET',
        message: 'HTTP/2: "GOAWAY" frame received with code 0',
      });
      expect(processed()).toEqual([false]);
      expect(sent.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      return;
    }
    expect(sent).toMatchObject({ status: 200, body: 'done' });
    expect(processed()).toEqual([false, false, true]);
    const retries = undiciReplays(client) ? ['unprocessed'] : ['unprocessed', 'unprocessed'];
    expect(sent.info).toMatchObject({ attempts: retries.length + 1, retries });
  });

  it.each(CLIENTS)('%s: a GOAWAY below the stream, GET: sent again', async (client) => {
    const sent = await post(client, [BELOW, ANSWER], { method: 'GET' });
    expect(sent).toMatchObject({ status: 200, body: 'done' });
    expect(processed()).toEqual([false, true]);
    // undici 8 sent it again itself; undici 7's GOAWAY proves nothing, and the method rule retries it.
    if (undiciReplays(client)) expect(sent.info).toMatchObject({ attempts: 1, retries: [] });
    else expect(sent.info).toMatchObject({ attempts: 2, retries: ['error'] });
  });

  // In the core's DEFAULT_ERROR_CODES: a GET is retried on it unless the caller takes it out.
  const withStreamErrors: Send = {};
  const withoutStreamErrors: Send = {
    policy: { errorCodes: DEFAULT_ERROR_CODES.filter((code) => code !== 'ERR_HTTP2_STREAM_ERROR') },
  };

  it.each([
    ['INTERNAL_ERROR', 'ERR_HTTP2_STREAM_ERROR'],
    ['CANCEL', 'UND_ERR_INFO'],
  ] as const)(
    'RST_STREAM %s before the headers: ambiguous (the server had the request)',
    async (rst, code) => {
      const reset: H2Step = { destroy: 'before-headers', rst };
      for (const client of CLIENTS) {
        const sent = await post(client, [reset, ANSWER], withStreamErrors);
        expect(sent.error?.code, client).toBe(code);
        expect(processed(), client).toEqual([true]);
        // Reported as ERR_HTTP2_STREAM_ERROR (a CANCEL too): retried by the method rule alone.
        expect(sent.info, client).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
        server.reset();
        const get = await post(client, [reset, ANSWER], { ...withStreamErrors, method: 'GET' });
        expect(get, client).toMatchObject({ status: 200, body: 'done' });
        expect(processed(), client).toEqual([true, true]);
        expect(get.info, client).toMatchObject({ attempts: 2, retries: ['error'] });
        server.reset();
        // Taken out of errorCodes, the code is not retried.
        const unlisted = await post(client, [reset, ANSWER], { ...withoutStreamErrors, method: 'GET' });
        expect(unlisted.info, client).toMatchObject({ attempts: 1, reason: 'error-not-retryable' });
        server.reset();
      }
    },
  );

  it('a GOAWAY including the stream, then the connection lost: ambiguous', async () => {
    for (const client of CLIENTS) {
      const sent = await post(client, [{ destroy: 'before-headers', goaway: 'including' }, ANSWER]);
      expect(sent.error?.code, client).toBe('UND_ERR_SOCKET');
      expect(processed(), client).toEqual([true]);
      expect(sent.info, client).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
      server.reset();
    }
  });

  it.each(CLIENTS)(
    '%s: RST_STREAM CANCEL mid-body: an error, never the part as the whole body',
    async (client) => {
      server.route('/x', [{ destroy: 'mid-body', rst: 'CANCEL', sentBytes: 10, declaredBytes: 100 }]);
      const sent = await send(client, `${server.url}/x`, { method: 'GET', connect: { ca: server.ca } });
      // undici 8's own error; undici 7 ends the body as if whole, and the interceptor says it is not.
      expect(sent.error).toEqual({
        code: 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
        message: 'Response body length does not match content-length header',
      });
      expect(processed()).toEqual([true]);
    },
  );

  it('transparentRetries: 0 turns the proof off: the method rule alone decides', async () => {
    const sent = await post('undici 8 fetch()', [REFUSED, ANSWER], { policy: { transparentRetries: 0 } });
    expect(sent.error?.code).toBe('ERR_HTTP2_STREAM_ERROR');
    expect(processed()).toEqual([false]);
    expect(sent.info).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
  });
});

describe('before a connection: nothing was written', () => {
  let tls: TlsScriptedServer;
  let handshakeReset: BrokenListener;
  let silent: BrokenListener;
  beforeAll(async () => {
    [tls, handshakeReset, silent] = await Promise.all([
      startTlsScriptedServer(),
      startHandshakeResetListener(),
      startSilentListener(),
    ]);
  });
  afterEach(async () => {
    await destroyAgents();
    expect(tls.requests).toHaveLength(0);
    expect(await tls.waitForIdle(3_000)).toBe(0);
  });
  afterAll(async () => {
    await Promise.all([tls.close(), handshakeReset.close(), silent.close()]);
  });

  it.each(CLIENTS)(
    '%s: a reset during the TLS handshake (a plain ECONNRESET): retried transparently',
    async (client) => {
      const before = handshakeReset.accepted();
      const sent = await send(client, `${handshakeReset.url}/x`);
      expect(sent.error).toEqual({ code: 'ECONNRESET', message: 'read ECONNRESET' });
      expect(handshakeReset.accepted() - before).toBe(3);
      // ECONNRESET is retried by the method rule too: for a POST without a key, it says no.
      expect(sent.info).toMatchObject({
        attempts: 3,
        retries: ['unprocessed', 'unprocessed'],
        reason: 'method-not-idempotent',
      });
    },
  );

  it.each(CLIENTS)(
    '%s: a certificate the client does not trust: nothing was sent, but it is not sent again (it would fail the same way)',
    async (client) => {
      const sent = await send(client, `${tls.url}/x`);
      expect(sent.error?.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
      expect(sent.info).toMatchObject({ attempts: 1, retries: [], reason: 'error-not-retryable' });
    },
  );

  it('a refused connection: retried transparently, then the method rule (ECONNREFUSED is listed)', async () => {
    const port = await refusedPort();
    const sent = await send('undici 8 request()', `https://127.0.0.1:${port}/x`);
    expect(sent.error?.code).toBe('ECONNREFUSED');
    expect(sent.info).toMatchObject({ attempts: 3, retries: ['unprocessed', 'unprocessed'] });
  });

  it('attemptTimeoutMs while still connecting: the attempt wrote nothing, retried transparently', async () => {
    const before = silent.accepted();
    const sent = await send('undici 8 request()', `${silent.url}/x`, {
      policy: { attemptTimeoutMs: 50 },
      connect: { timeout: 5_000 },
    });
    expect(sent.error?.code).toBe('ERR_JITTERBUG_ATTEMPT_TIMEOUT');
    // Every attempt waited for the same connection, which never came.
    expect(silent.accepted() - before).toBe(1);
    expect(sent.info).toMatchObject({
      attempts: 3,
      retries: ['unprocessed', 'unprocessed'],
      reason: 'method-not-idempotent',
    });
  });

  it('a request undici refuses inside the dispatch call (an invalid header) is not a connection failure', async () => {
    // (fetch refuses such a header itself, before any dispatcher.)
    const sent = await send('undici 8 request()', `${tls.url}/x`, {
      headers: { 'x-bad': 'line\r\nbreak' },
      connect: { ca: tls.ca },
    });
    expect(sent.error?.code).toBe('UND_ERR_INVALID_ARG');
    expect(sent.info).toMatchObject({ attempts: 1, retries: [], reason: 'error-not-retryable' });
  });
});
