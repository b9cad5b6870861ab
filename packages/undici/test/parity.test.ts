/**
 * What users of undici's RetryAgent and of axios-retry's per-request config rely on: a request's own
 * retry settings (`jitterbugOptions`), and an error for a final retryable status
 * (`throwOnRetryableStatus`), as undici's `RequestRetryError`.
 */
import { createRetryPolicy } from '@jitterbug/core';
import { Agent, errors, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { getRetryInfo, jitterbugOptions, RetryStatusError, retryInterceptor } from '../src/index.ts';

let server: ScriptedServer;
const agents: Agent[] = [];
const policy = () => createRetryPolicy({ random: () => 0, sleep: async () => {}, maxAttempts: 2 });
const dispatcher = (options: Parameters<typeof retryInterceptor>[1] = {}) => {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose(retryInterceptor(policy(), options));
};
const url = (path: string) => server.url + path;

beforeAll(async () => {
  server = await startScriptedServer();
});
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  expect(await server.waitForIdle(3_000)).toBe(0);
  server.reset();
});
afterAll(() => server.close());

describe("a request's own retry settings", () => {
  it('jitterbugOptions({ maxAttempts }) and jitterbugOptions(false)', async () => {
    server.route('/down', [{ status: 503 }]);
    const d = dispatcher();
    const more = await request(url('/down'), { dispatcher: d, ...jitterbugOptions({ maxAttempts: 4 }) });
    await more.body.dump();
    expect(server.seen('/down')).toHaveLength(4);
    server.reset();
    server.route('/down', [{ status: 503 }]);
    const once = await request(url('/down'), { dispatcher: d, ...jitterbugOptions(false) });
    await once.body.dump();
    expect(server.seen('/down')).toHaveLength(1);
    expect(getRetryInfo(once.headers)).toMatchObject({ reason: 'retry-disabled' });
  });

  it('invalid settings fail the request with a TypeError naming the field, before anything is sent', async () => {
    await expect(
      request(url('/bad'), { dispatcher: dispatcher(), ...jitterbugOptions({ maxAttempts: 0 }) }),
    ).rejects.toThrow('"jitterbug.maxAttempts"');
    expect(server.seen('/bad')).toHaveLength(0);
  });
});

describe('throwOnRetryableStatus', () => {
  it('true: after the last retryable status, a RetryStatusError with the fields of undici’s RequestRetryError', async () => {
    server.route('/busy', [{ status: 503, headers: { 'x-why': 'busy' }, body: 'busy' }]);
    const error = await request(url('/busy'), {
      dispatcher: dispatcher({ throwOnRetryableStatus: true }),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RetryStatusError);
    expect(error).toMatchObject({
      name: 'RequestRetryError',
      code: 'UND_ERR_REQ_RETRY',
      statusCode: 503,
      headers: { 'x-why': 'busy' },
      data: { count: 2 },
    });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 2, reason: 'max-attempts' });
    expect(server.seen('/busy')).toHaveLength(2);
  });

  it("given undici's own class, the request rejects with exactly that class", async () => {
    server.route('/limited', [{ status: 429, headers: { 'retry-after': '3600' } }]);
    const error = await request(url('/limited'), {
      dispatcher: dispatcher({ throwOnRetryableStatus: errors.RequestRetryError }),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(errors.RequestRetryError);
    expect(error).toMatchObject({ statusCode: 429, code: 'UND_ERR_REQ_RETRY' });
    expect(getRetryInfo(error)).toMatchObject({ attempts: 1, reason: 'retry-after-too-long' });
  });

  it('a status that is never retried is still handed over, as are successes', async () => {
    server.route('/missing', [{ status: 404, body: 'no' }]);
    const d = dispatcher({ throwOnRetryableStatus: true });
    const missing = await request(url('/missing'), { dispatcher: d });
    expect(missing.statusCode).toBe(404);
    expect(await missing.body.text()).toBe('no');
  });

  it('is refused when it is neither a boolean nor a class', () => {
    expect(() => retryInterceptor({}, { throwOnRetryableStatus: 'yes' as never })).toThrow(
      /"throwOnRetryableStatus"/,
    );
  });
});
