/**
 * Research, recorded as assertions: what each client shows when the connection itself fails, so
 * nothing of the request was written (gRFC A6: such a request may be retried whatever its method).
 * Refused, no such host, a connect timeout (a TLS listener that never answers: the only way to time
 * out a connect on loopback), a certificate the client does not trust, a reset during the TLS
 * handshake. If a client changes what it reports, this file says so.
 *
 * What a retry layer can rely on: the code down the `cause` chain (all but axios' timeout carry
 * one); and, for undici dispatchers, that the interceptor saw `onResponseError` with no
 * `onRequestStart` before it, which undici calls only once a connection exists — the one signal
 * that also proves a handshake reset (plain `ECONNRESET`, ambiguous by its code) unprocessed.
 */
import { lookup } from 'node:dns/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type BrokenListener,
  refusedPort,
  startHandshakeResetListener,
  startSilentListener,
} from './broken-listeners.ts';
import { type H2ScriptedServer, startH2ScriptedServer } from './h2-scripted-server.ts';
import {
  axiosHttp1,
  axiosHttp2,
  nodeFetchUndici7,
  type ProbeClient,
  undici8Fetch,
  undici8Request,
} from './signal-clients.ts';
import type { ErrorShape } from './signal-probe.ts';
import { startTlsScriptedServer, type TlsScriptedServer } from './tls-scripted-server.ts';

const INVALID_HOST = 'jitterbug-probe.invalid';

interface Client {
  readonly name: string;
  readonly send: ProbeClient;
  /** Whether it offers h2 (ALPN): such a client is sent to the HTTP/2 server, else to the TLS one. */
  readonly h2: boolean;
  /** How the client wraps the socket-level error it got. */
  readonly wrap: (inner: ErrorShape) => object;
  /** Whether an interceptor can watch it (undici dispatchers). */
  readonly traced: boolean;
}

const fetchFailed = (inner: ErrorShape) => ({ name: 'TypeError', message: 'fetch failed', cause: inner });
const canceled = (inner: ErrorShape) => `The pending stream has been canceled (caused by: ${inner.message})`;

const CLIENTS: readonly Client[] = [
  { name: 'undici 8 request()', send: undici8Request, h2: true, traced: true, wrap: (inner) => inner },
  { name: 'undici 8 fetch()', send: undici8Fetch, h2: true, traced: true, wrap: fetchFailed },
  { name: 'Node fetch + undici 7 Agent', send: nodeFetchUndici7, h2: true, traced: true, wrap: fetchFailed },
  {
    name: 'axios http adapter (HTTP/1.1)',
    send: axiosHttp1,
    h2: false,
    traced: false,
    wrap: (inner) => ({ name: 'AxiosError', code: inner.code, message: inner.message, cause: inner }),
  },
  {
    name: 'axios http adapter (httpVersion 2)',
    send: axiosHttp2,
    h2: true,
    traced: false,
    // axios cancels its pending HTTP/2 stream with the session's error.
    wrap: (inner) => ({
      name: 'AxiosError',
      code: 'ERR_HTTP2_STREAM_CANCEL',
      message: canceled(inner),
      cause: { name: 'Error', code: 'ERR_HTTP2_STREAM_CANCEL', message: canceled(inner), cause: inner },
    }),
  },
];

describe.each(CLIENTS.map((c) => [c.name, c] as const))(
  'signals before a connection: %s',
  (_name, client) => {
    let h2: H2ScriptedServer;
    let tls: TlsScriptedServer;
    let silent: BrokenListener;
    let handshakeReset: BrokenListener;
    let closedPort: number;
    /** What this machine's resolver says of a `.invalid` name: ENOTFOUND, or EAI_AGAIN with no DNS at all. */
    let dnsError: ErrorShape;

    beforeAll(async () => {
      [h2, tls, silent, handshakeReset, closedPort] = await Promise.all([
        startH2ScriptedServer(),
        startTlsScriptedServer(),
        startSilentListener(),
        startHandshakeResetListener(),
        refusedPort(),
      ]);
      const code = await lookup(INVALID_HOST).then(
        () => 'resolved',
        (e: { code: string }) => e.code,
      );
      dnsError = { name: 'Error', code, message: `getaddrinfo ${code} ${INVALID_HOST}` };
    });
    afterEach(async () => {
      // Nothing reached an HTTP server, and nothing is left open anywhere.
      expect(h2.requests).toHaveLength(0);
      expect(tls.requests).toHaveLength(0);
      for (const server of [h2, tls]) expect(await server.waitForIdle(3_000)).toBe(0);
    });
    afterAll(async () => {
      await Promise.all([h2.close(), tls.close(), silent.close(), handshakeReset.close()]);
    });

    const tlsUrl = (): string => `${client.h2 ? h2.url : tls.url}/x`;
    const expectTraces = (traces: unknown): void => {
      if (client.traced) expect(traces).toEqual([{ events: ['onResponseError'], bodyBytesSent: 0 }]);
      else expect(traces).toBeUndefined();
    };

    it('connection refused: ECONNREFUSED', async () => {
      const outcome = await client.send(`https://127.0.0.1:${closedPort}/x`, {
        method: 'POST',
        body: 'text',
      });
      const inner = {
        name: 'Error',
        code: 'ECONNREFUSED',
        message: `connect ECONNREFUSED 127.0.0.1:${closedPort}`,
      };
      expect(outcome.error).toEqual(client.wrap(inner));
      expectTraces(outcome.traces);
    });

    it('no such host: ENOTFOUND (EAI_AGAIN where no resolver answers)', async () => {
      expect(['ENOTFOUND', 'EAI_AGAIN']).toContain(dnsError.code);
      const outcome = await client.send(`https://${INVALID_HOST}/x`, { method: 'POST', body: 'text' });
      expect(outcome.error).toEqual(client.wrap(dnsError));
      expectTraces(outcome.traces);
    });

    it('connect timeout: a TLS handshake the listener never answers', async () => {
      const before = silent.accepted();
      const outcome = await client.send(`${silent.url}/x`, {
        method: 'POST',
        body: 'text',
        connectTimeoutMs: 200,
        timeoutMs: 200,
      });
      expect(silent.accepted()).toBe(before + 1);
      if (client.traced) {
        const port = new URL(silent.url).port;
        const inner = {
          name: 'ConnectTimeoutError',
          code: 'UND_ERR_CONNECT_TIMEOUT',
          message: `Connect Timeout Error (attempted address: 127.0.0.1:${port}, timeout: 200ms)`,
        };
        expect(outcome.error).toEqual(client.wrap(inner));
      } else {
        // axios has one timeout for the whole request: a connect that timed out looks like a slow answer.
        expect(outcome.error).toEqual({
          name: 'AxiosError',
          code: 'ECONNABORTED',
          message: 'timeout of 200ms exceeded',
        });
      }
      expectTraces(outcome.traces);
    });

    it('untrusted certificate: the handshake fails before a byte of HTTP', async () => {
      const outcome = await client.send(tlsUrl(), { method: 'POST', body: 'text' });
      const inner = {
        name: 'Error',
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        message:
          'self-signed certificate; if the root CA is installed locally, try running Node.js with --use-system-ca',
      };
      expect(outcome.error).toEqual(client.wrap(inner));
      expectTraces(outcome.traces);
    });

    it('reset during the TLS handshake: a plain ECONNRESET', async () => {
      const before = handshakeReset.accepted();
      const outcome = await client.send(`${handshakeReset.url}/x`, { method: 'POST', body: 'text' });
      expect(handshakeReset.accepted()).toBe(before + 1);
      const inner = { name: 'Error', code: 'ECONNRESET', message: 'read ECONNRESET' };
      expect(outcome.error).toEqual(client.wrap(inner));
      expectTraces(outcome.traces);
    });
  },
);
