/**
 * What undici shows of a kept connection it lost (`lostKeptConnection`): its `SocketError` for a
 * closed connection, on one that had read more than an HTTP/2 server's preface, found on the error
 * or down its `cause` chain (fetch's `TypeError: fetch failed`). The real clients' errors are read
 * against real servers in the adapters' tests and `test/haproxy/`.
 */
import { lostKeptConnection } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';

const socketError = (message: string, bytesRead: number) =>
  Object.assign(new Error(message), {
    name: 'SocketError',
    code: 'UND_ERR_SOCKET',
    socket: { localPort: 40000, bytesWritten: 140, bytesRead },
  });

describe('lostKeptConnection', () => {
  it('a connection that answered before, closed by the server (HTTP/1.1, HTTP/2), or shut gracefully by an HTTP/2 GOAWAY', () => {
    for (const message of ['other side closed', 'closed', 'HTTP/2: "GOAWAY" frame received with code 0'])
      expect(lostKeptConnection(socketError(message, 150))).toBe(true);
  });

  it("not a new connection: nothing read yet, or only an HTTP/2 server's preface", () => {
    expect(lostKeptConnection(socketError('other side closed', 0))).toBe(false);
    expect(lostKeptConnection(socketError('other side closed', 55))).toBe(false);
    expect(lostKeptConnection(socketError('other side closed', 64))).toBe(false);
    expect(lostKeptConnection(socketError('other side closed', 65))).toBe(true);
  });

  it('not another socket error: a malformed response, a GOAWAY with an error code', () => {
    expect(lostKeptConnection(socketError('bad response', 500))).toBe(false);
    expect(lostKeptConnection(socketError('HTTP/2: "GOAWAY" frame received with code 2', 500))).toBe(false);
  });

  it('not without the socket counts: a plain ECONNRESET, a SocketError without them', () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    expect(lostKeptConnection(reset)).toBe(false);
    expect(
      lostKeptConnection(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' })),
    ).toBe(false);
    for (const value of [undefined, null, 'other side closed', 42])
      expect(lostKeptConnection(value)).toBe(false);
  });

  it("down a fetch's cause chain, at most 5 deep, and the first socket error found decides", () => {
    const fetchFailed = new TypeError('fetch failed', { cause: socketError('other side closed', 150) });
    expect(lostKeptConnection(fetchFailed)).toBe(true);
    let deep: unknown = socketError('other side closed', 150);
    for (let i = 0; i < 5; i++) deep = new Error(`wrapper ${i}`, { cause: deep });
    expect(lostKeptConnection(deep)).toBe(true);
    expect(lostKeptConnection(new Error('one more', { cause: deep }))).toBe(false);
    const fresh = new TypeError('fetch failed', {
      cause: Object.assign(socketError('other side closed', 0), { cause: socketError('closed', 150) }),
    });
    expect(lostKeptConnection(fresh)).toBe(false);
    const cycle: { code?: string; cause?: unknown } = {};
    cycle.cause = cycle;
    expect(lostKeptConnection(cycle)).toBe(false);
  });
});
