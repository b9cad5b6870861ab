/**
 * Caddy's `reverse_proxy` in front of a backend that resets its connection in the middle of a
 * body, through every client over TLS, default jitterbug options. With a `content-length`, Caddy
 * cannot finish the answer: it cuts the client's connection (HTTP/1.1) or ends its stream short
 * (HTTP/2), and the cut reaches every client as an error, never as a short body. axios reads the
 * body before it answers, so its GET is sent again and ends 200 with the whole body of the
 * backend's second answer; the other clients hand the response over at its headers (as fetch
 * does), and the caller's read of the body fails: default options do not resume a body. A POST
 * without a key is sent once. Without a `content-length` (chunked), Caddy 2.6 ends the answer as
 * if it were complete: every client gets a 200 with the part the backend sent, and none can tell
 * (recorded here, so that a Caddy that changes this is noticed). Each checked in Caddy's log and
 * the backend's record.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConformanceClient } from '../conformance/driver.ts';
import { type RunningCaddy, startCaddy } from '../support/caddy/caddy.ts';
import { CLIENTS, type ClientName, createClient, tlsTransport } from '../support/node-clients.ts';
import { type ProxyStack, startProxyStack } from '../support/proxy-stack.ts';
import { ending } from '../support/sent.ts';

const DECLARED = 4_000;
const SENT = 1_000;
const WHOLE = 'whole body';
/** The clients that read a body whole before they answer their caller. */
const BUFFERING: readonly ClientName[] = ['axios'];

describe.each(CLIENTS)('Caddy with its upstream cut mid-body, %s', (name: ClientName) => {
  let stack: ProxyStack<RunningCaddy>;
  let client: ConformanceClient;
  beforeEach(async () => {
    stack = await startProxyStack((backend) => startCaddy({}, backend));
    client = await createClient(name, stack.proxy.url, {}, { name: tlsTransport(name), ca: stack.proxy.ca });
  });
  afterEach(async () => {
    await client.close();
    await stack.stop();
  });

  const statuses = async (path: string) =>
    (await stack.proxy.log.settled()).filter((l) => l.uri === path).map((l) => l.status);

  const buffering = BUFFERING.includes(name);
  it(`with a content-length: the cut is an error, ${buffering ? 'a GET is sent again and ends 200 whole' : "the caller's read of a GET fails"}, a POST is sent once`, async () => {
    const cut = { destroy: 'mid-body', sentBytes: SENT, declaredBytes: DECLARED } as const;
    stack.backend.route('/cut/get', [cut, { status: 200, body: WHOLE }]);
    stack.backend.route('/cut/post', [cut, { status: 200, body: WHOLE }]);
    const get = { method: 'GET', path: '/cut/get' };
    const result = await client.send(get);
    if (buffering) {
      expect(ending({ request: get, result })).toBe('200');
      expect(result.outcome.kind === 'response' && result.outcome.body).toBe(WHOLE);
      expect(result.info?.attempts).toBe(2);
    } else {
      // The response was the caller's at its headers: its body then broke in the caller's hands.
      expect(result.outcome.kind).toBe('error');
      // What the driver read before the error (ky's reads none) is short of the declared length.
      expect(result.outcome.kind === 'error' ? (result.outcome.partial ?? '').length : DECLARED).toBeLessThan(
        DECLARED,
      );
    }
    expect(stack.backend.seen('/cut/get')).toHaveLength(buffering ? 2 : 1);

    const post = { method: 'POST', path: '/cut/post', body: { kind: 'text', value: 'order' } } as const;
    const posted = await client.send(post);
    expect(posted.outcome.kind).toBe('error');
    expect(stack.backend.seen('/cut/post')).toHaveLength(1);
    // Caddy logged each answer with the status it had sent, and how much of a cut one went out.
    const cutLines = (await stack.proxy.log.settled()).filter((l) => l.uri.startsWith('/cut/'));
    expect(cutLines.map((l) => [l.uri, l.status])).toEqual([
      ...Array(buffering ? 2 : 1).fill(['/cut/get', 200]),
      ['/cut/post', 200],
    ]);
    expect(cutLines[0]!.size).toBeLessThan(DECLARED);
  });

  it('chunked: Caddy 2.6 ends the cut answer as complete, and the client gets a short 200 once', async () => {
    stack.backend.route('/chunked', [
      { destroy: 'mid-body', sentBytes: SENT, chunked: true },
      { status: 200, body: WHOLE },
    ]);
    const get = { method: 'GET', path: '/chunked' };
    const result = await client.send(get);
    expect(ending({ request: get, result })).toBe('200');
    expect(result.outcome.kind === 'response' && result.outcome.body.length).toBe(SENT);
    expect(result.info?.attempts).toBe(1);
    expect(await statuses('/chunked')).toEqual([200]);
  });
});
