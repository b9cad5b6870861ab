/**
 * The loopback server of the sessions and the memory runs, in a process of its own (keep-alive; it
 * sends `{ port }` once listening, answers `stats` with the requests served, closes on `stop`), and
 * its answers, which the in-memory transports give too: `/flaky?id=…` is 503 the first time an id is
 * seen and 200 the second, so every request through a retrying client is one retry; anything else is
 * 200 with a 46-byte JSON body.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  readonly status: number;
  readonly body: Buffer;
}
const OK: Answer = { status: 200, body: Buffer.from('{"ok":true,"items":[1,2,3],"name":"jitterbug"}') };
const UNAVAILABLE: Answer = { status: 503, body: Buffer.from('{"ok":false,"error":"unavailable"}') };

export const answerer = (): ((path: string) => Answer) => {
  const refused = new Set<string>();
  return (path) => {
    if (!path.startsWith('/flaky')) return OK;
    const id = path.slice(path.indexOf('id=') + 3);
    if (refused.delete(id)) return OK;
    refused.add(id);
    return UNAVAILABLE;
  };
};

if (import.meta.main) {
  const answer = answerer();
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    const { status, body } = answer(req.url ?? '/');
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length }).end(body);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as AddressInfo).port }));
  process.on('message', (message) => {
    if (message === 'stats') process.send?.({ requests });
    if (message !== 'stop') return;
    server.closeAllConnections();
    server.close(() => process.disconnect());
  });
}
