import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from './scripted-server.ts';

// The conformance and reliability suites trust this server's log; check the log itself.
describe('scripted server', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer();
  });
  afterAll(() => server.close());

  it('answers steps in order, repeats the last, and records requests', async () => {
    server.route('/a', [
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200, body: 'fine' },
    ]);
    const first = await fetch(`${server.url}/a`, { method: 'PUT', body: 'x1' });
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('1');
    await first.arrayBuffer();
    const second = await fetch(`${server.url}/a`);
    expect(await second.text()).toBe('fine');
    const third = await fetch(`${server.url}/a`);
    expect(await third.text()).toBe('fine');
    const seen = server.seen('/a');
    expect(seen.map((r) => [r.method, r.nth, r.body.toString()])).toEqual([
      ['PUT', 0, 'x1'],
      ['GET', 1, ''],
      ['GET', 2, ''],
    ]);
  });

  it('destroys connections before headers and mid-body', async () => {
    server.route('/reset', [{ destroy: 'before-headers' }]);
    await expect(fetch(`${server.url}/reset`)).rejects.toThrow();
    server.route('/mid', [{ destroy: 'mid-body', sentBytes: 10, declaredBytes: 100 }]);
    const res = await fetch(`${server.url}/mid`);
    expect(res.status).toBe(200);
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('sends large bodies with backpressure and notes how much was written', async () => {
    server.route('/big', [{ status: 503, bodyBytes: 1_000_000 }]);
    const res = await fetch(`${server.url}/big`);
    expect((await res.arrayBuffer()).byteLength).toBe(1_000_000);
    expect(server.responses.at(-1)?.bytesWritten).toBe(1_000_000);
  });
});
