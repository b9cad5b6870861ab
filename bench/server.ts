/**
 * The loopback server the benchmark's clients talk to, run in its own process (`fork`): keep-alive,
 * JSON bodies. `/ok` answers 200 with the 50-byte body, `/ok/<size>` with the body of that size
 * (`bodies.ts`); `/flaky?id=…` answers 503 the first time it sees an id and 200 (50 bytes) the
 * second time (then forgets the id), so every request through a retrying client is exactly one
 * retry. Sends `{ port }` to the parent over IPC once listening.
 */
import { createServer } from 'node:http';
import { BODIES, type SizeName } from './bodies.ts';

const OK = BODIES['50B'];
const BY_PATH = new Map<string, Buffer>(
  (Object.entries(BODIES) as [SizeName, Buffer][]).map(([size, body]) => [`/ok/${size}`, body]),
);
const UNAVAILABLE = Buffer.from(JSON.stringify({ ok: false, error: 'unavailable' }));
const seen = new Set<string>();
let requests = 0;

const server = createServer((req, res) => {
  requests++;
  const url = req.url ?? '/';
  let body = BY_PATH.get(url) ?? OK;
  if (url.startsWith('/flaky')) {
    const id = url.slice(url.indexOf('id=') + 3);
    if (seen.delete(id)) {
      body = OK;
    } else {
      seen.add(id);
      res.statusCode = 503;
      body = UNAVAILABLE;
    }
  }
  res.setHeader('content-type', 'application/json');
  res.setHeader('content-length', body.length);
  res.end(body);
});
server.keepAliveTimeout = 60_000;

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.send?.({ port });
});

// The parent asks for the count (a check that the clients really sent what they report), then exits.
process.on('message', (message: unknown) => {
  if (message === 'stats') process.send?.({ requests, pendingFlaky: seen.size });
  if (message === 'stop') {
    server.closeAllConnections();
    server.close(() => process.disconnect());
  }
});
