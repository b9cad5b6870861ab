/**
 * A body never reaches the caller longer than its response declared (issue 24 item 7, undici #4970),
 * whatever the server writes: a real `node:http` server whose answers are written on the raw socket,
 * where Node's own response object would refuse them (a `206` whose length and range disagree, more
 * bytes than `content-length` says, a body ended by the connection's close), and undici's
 * `MockAgent`, which frames nothing by `content-length`.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createResume, type RetryPolicyOptions } from '@jitterbug/core';
import * as undici8 from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retryInterceptor } from '../src/index.ts';
import { readBody } from './helpers.ts';

/** What the server writes on the socket for the n-th request to a path, and whether it then closes. */
interface RawAnswer {
  readonly raw: string;
  /** Destroy the connection once written (a reset), or end it (a close the body runs to). */
  readonly after?: 'reset' | 'close';
}

/** undici #4970's rest: a range of 2 bytes whose body is a whole response smuggled behind them. */
const SMUGGLED = 'r1HTTP/1.1 302 Found\r\nLocation: http://evil.com\r\nContent-Length: 0\r\n\r\n'.padEnd(
  70,
  '.',
);

const head = (status: string, headers: Record<string, string>): string =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

let server: Server;
let origin: string;
const plans = new Map<string, readonly RawAnswer[]>();
const seen: { path: string; range: string | undefined; ifRange: string | undefined }[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req: IncomingMessage) => {
    const path = req.url ?? '/';
    const count = seen.filter((s) => s.path === path).length;
    seen.push({
      path,
      range: req.headers.range,
      ifRange: req.headers['if-range'] as string | undefined,
    });
    const answers = plans.get(path) ?? [{ raw: head('404 Not Found', { 'content-length': '0' }) }];
    const answer = answers[Math.min(count, answers.length - 1)]!;
    const socket = req.socket;
    socket.write(answer.raw, () => {
      if (answer.after === 'reset') setTimeout(() => socket.destroy(), 5);
      else if (answer.after === 'close') socket.end();
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  server.close();
  await once(server, 'close');
});

const agents: undici8.Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.destroy();
  plans.clear();
  seen.length = 0;
});

const dispatcher = (options: RetryPolicyOptions = {}) => {
  const agent = new undici8.Agent();
  agents.push(agent);
  return agent.compose(retryInterceptor({ sleep: async () => {}, random: () => 0.5, ...options }));
};

/** undici 8 `request()`: the body's bytes up to its end or error. */
const viaRequest = async (path: string, options?: RetryPolicyOptions) => {
  const res = await undici8.request(origin + path, { dispatcher: dispatcher(options) });
  return { status: res.statusCode, ...(await readBody(res.body)) };
};

/** undici 8 `fetch()`: the same (its body error carries ours as its cause). */
const viaFetch = async (path: string, options?: RetryPolicyOptions) => {
  const res = await undici8.fetch(origin + path, { dispatcher: dispatcher(options) });
  const reader = res.body!.getReader();
  const chunks: Uint8Array[] = [];
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    return { status: res.status, bytes: Buffer.concat(chunks), error: undefined as unknown };
  } catch (error) {
    return { status: res.status, bytes: Buffer.concat(chunks), error };
  }
};

/** The content-length error, on the error or its cause. */
const lengthError = (error: unknown): { received: number; declared: number } | undefined => {
  for (let e = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') return e as never;
  }
  return undefined;
};

/** The first answer of undici #4970: 5 bytes declared, 3 sent, then a reset. */
const FIRST: RawAnswer = {
  raw: `${head('200 OK', { 'content-length': '5', etag: '"123"', 'accept-ranges': 'bytes' })}use`,
  after: 'reset',
};

describe.each([
  { client: 'request()', get: viaRequest },
  { client: 'fetch()', get: viaFetch },
])('undici 8 $client with resume', ({ get }) => {
  it('undici #4970: a 206 for bytes 3-4 of 5 with content-length 70 fails the body; no byte past 5 arrives', async () => {
    plans.set('/users/1', [
      FIRST,
      {
        raw: `${head('206 Partial Content', { etag: '"123"', 'content-range': 'bytes 3-4/5', 'content-length': '70' })}${SMUGGLED}`,
      },
    ]);
    const { status, bytes, error } = await get('/users/1', { resume: createResume() });
    expect(status).toBe(200);
    expect(lengthError(error)).toMatchObject({ received: 73, declared: 5 });
    expect(bytes.toString()).toBe('use');
    expect(seen.map((s) => [s.range, s.ifRange])).toEqual([
      [undefined, undefined],
      ['bytes=3-', '"123"'],
    ]);
  });

  it('a 206 for bytes 3-4 of 5 whose body runs to the connection’s close: the same', async () => {
    plans.set('/closed', [
      FIRST,
      {
        raw: `${head('206 Partial Content', { etag: '"123"', 'content-range': 'bytes 3-4/5', connection: 'close' })}${SMUGGLED}`,
        after: 'close',
      },
    ]);
    const { bytes, error } = await get('/closed', { resume: createResume() });
    expect(lengthError(error)).toMatchObject({ received: 73, declared: 5 });
    expect(bytes.toString()).toBe('use');
  });

  it('a 206 that writes more than its own content-length: undici reads what it declared, the body is whole', async () => {
    plans.set('/framed', [
      FIRST,
      {
        raw: `${head('206 Partial Content', { etag: '"123"', 'content-range': 'bytes 3-4/5', 'content-length': '2' })}rs${SMUGGLED}`,
        after: 'close',
      },
    ]);
    const { bytes, error } = await get('/framed', { resume: createResume() });
    expect(error).toBeUndefined();
    expect(bytes.toString()).toBe('users');
  });

  it('a first answer that writes more than its content-length: the caller gets the 5 bytes declared', async () => {
    plans.set('/first', [
      { raw: `${head('200 OK', { 'content-length': '5' })}users${SMUGGLED}`, after: 'close' },
    ]);
    const { bytes, error } = await get('/first');
    expect(error).toBeUndefined();
    expect(bytes.toString()).toBe('users');
  });
});

describe('a dispatcher that does not frame by content-length (MockAgent)', () => {
  const mocked = (long: string, compose: boolean) => {
    const mock = new undici8.MockAgent();
    mock.disableNetConnect();
    mock
      .get('http://api.test')
      .intercept({ path: '/users/1', method: 'GET' })
      .reply(200, long, { headers: { 'content-length': '5' } });
    return { mock, dispatcher: compose ? mock.compose(retryInterceptor({})) : mock };
  };
  const body = `users${SMUGGLED}`;

  it('without jitterbug, the caller gets all 75 bytes of a body that declared 5', async () => {
    const { mock, dispatcher } = mocked(body, false);
    const res = await undici8.request('http://api.test/users/1', { dispatcher });
    expect((await res.body.text()).length).toBe(75);
    await mock.close();
  });

  it('with jitterbug, the body fails with the content-length error before the extra bytes reach the caller', async () => {
    const { mock, dispatcher } = mocked(body, true);
    const res = await undici8.request('http://api.test/users/1', { dispatcher });
    const { bytes, error: failure } = await readBody(res.body);
    expect(lengthError(failure)).toMatchObject({ received: 75, declared: 5 });
    expect(bytes.length).toBe(0);
    await mock.close();
  });
});
