/**
 * The keep-alive race on axios' http adapter (issue 36): a request written to a connection kept
 * from an earlier one (Node's `request.reusedSocket`) that the server resets before any byte of the
 * answer is reported as `staleConnection`, and retried for a GET or a keyed POST without a budget
 * token; a POST without a key is sent once; a reset of a fresh connection is an ordinary retry.
 * With axios following redirects (its default: follow-redirects' request wraps Node's) and without.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { getRetryInfo } from '../src/index.ts';
import { createTestClient, type TestClient } from './helpers.ts';

let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

const lostThenAnswered = (path: string) =>
  server.route(path, [{ destroy: 'before-headers' }, { status: 200, body: 'answered' }]);

/** One budget token, and none deposited: what a retry leaves of it shows whether it took it. */
const budget = { burst: 1, ratio: 0 } as const;

describe.each([
  ['following redirects', 5],
  ['maxRedirects: 0', 0],
])('a reset of a reused connection before the answer (%s)', (_, maxRedirects) => {
  let client: TestClient;
  /** Each retry's reason and the budget's tokens after it. */
  let retried: [string, number | undefined][];
  const warm = async () => expect((await client.api.get('/warm')).status).toBe(200);
  const fresh = () => {
    client?.close();
    retried = [];
    client = createTestClient(
      server.url,
      { budget, onRetry: (e) => void retried.push([e.reason, e.budgetTokens]) },
      { maxRedirects },
    );
  };

  it('a GET is retried as stale-connection, and takes no budget token', async () => {
    fresh();
    await warm();
    lostThenAnswered(`/get-${maxRedirects}`);
    const response = await client.api.get(`/get-${maxRedirects}`);
    expect(response.data).toBe('answered');
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
    expect(retried).toEqual([['stale-connection', 1]]);
  });

  it('a keyed POST is retried the same way, with its key', async () => {
    fresh();
    await warm();
    const path = `/keyed-${maxRedirects}`;
    lostThenAnswered(path);
    const response = await client.api.post(path, 'order', { headers: { 'Idempotency-Key': 'k-1' } });
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['stale-connection'] });
    expect(server.seen(path).map((r) => r.headers['idempotency-key'])).toEqual(['k-1', 'k-1']);
  });

  it('a POST without a key is sent once: the server may have had it', async () => {
    fresh();
    await warm();
    const path = `/post-${maxRedirects}`;
    lostThenAnswered(path);
    const error = await client.api.post(path, 'order').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ECONNRESET' });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'method-not-idempotent' });
    expect(server.seen(path)).toHaveLength(1);
  });

  it('a reset of a fresh connection is an ordinary retry, which takes the token', async () => {
    fresh();
    const path = `/fresh-${maxRedirects}`;
    lostThenAnswered(path);
    const response = await client.api.get(path);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 2, retries: ['error'] });
    expect(retried).toEqual([['error', 0]]);
    client.close();
  });
});
