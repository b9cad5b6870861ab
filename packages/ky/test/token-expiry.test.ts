/**
 * The ky migration guide's recipe for a token that expires, with ky's own `beforeRetry` hooks (ky 2
 * runs them for jitterbug's retries): 20 requests in flight with an expired token against a real
 * server that answers 401 to it all end 200, each sent twice. Their forced retry is a hook's fix of
 * a refused request, not a server failing: it takes no budget token (once per request), so none
 * ends `budget-exhausted` (10 of 20 did before).
 */

/**
 * The ky migration guide's recipe for a token that expires, with ky's own `beforeRetry` hooks (ky 2
 * runs them for jitterbug's retries): 20 requests in flight with an expired token against a real
 * server that answers 401 to it all end 200, each sent twice. Their forced retry is a hook's fix of
 * a refused request, not a server failing: it takes no budget token (once per request), so none
 * ends `budget-exhausted` (10 of 20 did before).
 */
import ky, { isHTTPError, type Options } from 'ky';
import { describe, expect, it } from 'vitest';
import { getRetryInfo, kyRetry } from '../src/index.ts';
import { loopback, recordingSleep } from './helpers.ts';

describe('ky 2, a token refreshed by ky’s own beforeRetry hook', () => {
  const { server, newAgent } = loopback();

  it('20 requests in flight when the token expires: every one ends 200, each sent twice', async () => {
    server.route('/me', (request) =>
      request.headers.authorization === 'Bearer fresh'
        ? { status: 200, body: 'me' }
        : { status: 401, headers: { 'www-authenticate': 'Bearer' } },
    );
    let refreshes = 0;
    const api = ky
      .create({
        ...kyRetry({
          sleep: recordingSleep().sleep,
          shouldRetry: ({ status, attempt }) => (status === 401 && attempt === 1 ? true : undefined),
        }),
        dispatcher: newAgent(),
      } as Options)
      .extend({
        hooks: {
          beforeRetry: [
            async ({ request, error }) => {
              if (isHTTPError(error) && error.response.status === 401) {
                refreshes++;
                request.headers.set('authorization', 'Bearer fresh');
              }
            },
          ],
        },
      });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(`${server.url}/me`, { headers: { authorization: 'Bearer expired', 'x-n': String(i) } }),
      ),
    );
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(getRetryInfo(response)).toMatchObject({ attempts: 2, outcome: 'success' });
      await response.body?.cancel();
    }
    expect(server.seen('/me')).toHaveLength(40);
    expect(refreshes).toBe(20);
  });
});
