/**
 * Between attempts (issue 26), in every runtime and client, with the recipes users copy from
 * `examples/between-attempts/recipes.ts`: a fresh token after a 401, a signature made again for the
 * retry (WebCrypto, in every runtime), and a mirror host after two failures (the same server under
 * another name: `localhost` for `127.0.0.1`).
 */
import {
  hmacSigner,
  mirrorAfter,
  refreshTokenOn401,
  signatureHeaders,
  signEveryRetry,
} from '../../../examples/between-attempts/recipes.ts';
import type { Scenario } from '../scenario.ts';
import { expectFinalStatus } from './final-status.ts';

const SECRET = 'runtime-secret';

/** The server's side of the signature: over the method, the path and the time it carries. */
const signedAs = async (method: string, path: string, date: string): Promise<string> => {
  const sign = await hmacSigner(SECRET);
  return `HMAC-SHA256 Signature=${await sign(`${method}\n${path}\n${date}`)}`;
};

export const betweenAttempts: Scenario = {
  id: 'between-attempts',
  title: 'beforeRetry: a fresh token after a 401, a new signature for the retry, a mirror after two failures',
  routes: () => {
    let firstDate: string | undefined;
    return {
      '/me': (request) =>
        request.headers.authorization === 'Bearer fresh'
          ? { status: 200, body: 'me' }
          : { status: 401, body: 'expired' },
      '/signed': async (request) => {
        const date = String(request.headers['x-amz-date']);
        const good = request.headers.authorization === (await signedAs(request.method, request.path, date));
        if (request.nth === 0) {
          firstDate = date;
          return { status: 503, body: good ? 'busy' : 'badly signed' };
        }
        return good && date !== firstDate ? { status: 200, body: 'signed' } : { status: 403, body: 'stale' };
      },
      '/report': (request) =>
        String(request.headers.host).startsWith('localhost')
          ? { status: 200, body: 'mirror' }
          : { status: 503, body: 'down' },
    };
  },
  async run(ctx) {
    const me = await ctx.connect({ options: refreshTokenOn401(async () => 'fresh') }).send({
      method: 'GET',
      url: ctx.url('/me'),
      headers: { authorization: 'Bearer expired' },
    });
    const sign = await hmacSigner(SECRET);
    const url = ctx.url('/signed');
    const signed = await ctx.connect({ options: signEveryRetry(sign) }).send({
      method: 'GET',
      url,
      headers: await signatureHeaders(sign, 'GET', url),
    });
    const mirror = new URL(ctx.url('/report'));
    mirror.hostname = 'localhost';
    const report = await ctx.connect({ options: mirrorAfter(2, mirror.href) }).send({
      method: 'GET',
      url: ctx.url('/report'),
    });
    return { calls: [me, signed, report] };
  },
  check(ctx) {
    const { expect, result } = ctx;
    const [me, signed, report] = result.calls;
    expectFinalStatus(ctx, me, 200, 'me');
    expect(ctx.seen('/me').map((r) => r.headers.authorization)).toEqual(['Bearer expired', 'Bearer fresh']);
    expectFinalStatus(ctx, signed, 200, 'signed');
    const dates = ctx.seen('/signed').map((r) => r.headers['x-amz-date']);
    expect(dates).toHaveLength(2);
    expect(dates[1]).not.toBe(dates[0]);
    expectFinalStatus(ctx, report, 200, 'mirror');
    expect(ctx.seen('/report').map((r) => String(r.headers.host).split(':')[0])).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      'localhost',
    ]);
  },
};
