/**
 * Which way statuses are decided: inside the call's fetch on ky 2 (no `afterResponse` hook, so ky
 * never clones a response for jitterbug), in `afterResponse` on ky 1. The ky major comes from the
 * `ky` that `@jitterbug/ky` resolves unless named; a mismatch is refused, never silently unretried.
 */
import ky2, * as ky2Namespace from 'ky';
import ky1, * as ky1Namespace from 'ky1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { getRetryInfo, kyMajorOf, kyRetry } from '../src/index.ts';

const noWait = { sleep: async () => {} };

describe('kyMajor', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it('is read from a ky module namespace', () => {
    expect(kyMajorOf(ky2Namespace)).toBe(2);
    expect(kyMajorOf(ky1Namespace)).toBe(1);
  });

  it('defaults to the ky this package resolves (ky 2 here): no afterResponse hook of its own', () => {
    const { hooks } = kyRetry();
    // Only the lists a call needs (ky merges each list on every call): none of them empty.
    expect(Object.keys(hooks)).toEqual(['init', 'beforeRetry', 'beforeError']);
    expect(kyRetry(undefined, { kyMajor: 1 }).hooks.afterResponse).toHaveLength(1);
  });

  it('refuses invalid adapter options with a TypeError naming them', () => {
    expect(() => kyRetry(undefined, { kyMajor: 3 as never })).toThrow(/"kyMajor" must be 1 or 2/);
    expect(() => kyRetry(undefined, { major: 2 } as never)).toThrow(/unknown ky adapter option "major"/);
    expect(() => kyRetry(undefined, null as never)).toThrow(TypeError);
  });

  it('set up for ky 2 but run on ky 1: a success passes, the first failure says so with a TypeError', async () => {
    server.route('/mismatch-ok', [{ status: 200, body: 'ok' }]);
    server.route('/mismatch', [{ status: 503 }, { status: 200 }]);
    server.route('/mismatch-reset', [{ destroy: 'before-headers' }, { status: 200 }]);
    const api = ky1.create(kyRetry(noWait) as never);
    expect(await (await api.get(`${server.url}/mismatch-ok`)).text()).toBe('ok');
    await expect(api.get(`${server.url}/mismatch`)).rejects.toThrow(/kyMajor: 1/);
    await expect(api.get(`${server.url}/mismatch-reset`)).rejects.toThrow(/kyMajor: 1/);
    expect(server.seen('/mismatch')).toHaveLength(1);
    expect(server.seen('/mismatch-reset')).toHaveLength(1);
  });

  it('ky 2: your fetch and your afterResponse hooks see every attempt and only the final response', async () => {
    server.route('/hooks', [{ status: 503 }, { status: 502 }, { status: 200, body: 'ok' }]);
    const fetched: number[] = [];
    const seen: number[] = [];
    const api = ky2.create({
      ...kyRetry(noWait),
      fetch: async (input: Request | URL | string, init?: RequestInit) => {
        const response = await fetch(input, init);
        fetched.push(response.status);
        return response;
      },
    });
    const extended = api.extend({
      hooks: { afterResponse: [({ response }) => void seen.push(response.status)] },
    });
    const response = await extended.get(`${server.url}/hooks`);
    expect(await response.text()).toBe('ok');
    expect(fetched).toEqual([503, 502, 200]);
    expect(seen).toEqual([200]);
    expect(getRetryInfo(response)).toMatchObject({ attempts: 3, reason: 'success' });
  });

  it('ky 2: a fetch set before kyRetry on the same options is kept, and wrapped', async () => {
    server.route('/order', [{ status: 503 }, { status: 200 }]);
    let calls = 0;
    const api = ky2.create({
      fetch: async (input: Request | URL | string, init?: RequestInit) => {
        calls++;
        return fetch(input, init);
      },
      ...kyRetry(noWait),
    });
    expect((await api.get(`${server.url}/order`)).status).toBe(200);
    expect(calls).toBe(2);
  });
});
