/**
 * The loopback server the benchmark's clients talk to, run in its own process (`fork`): keep-alive,
 * JSON bodies, answered as `answers.ts` says (`/ok/<size>`; `/flaky?id=…` 503 then 200, so every
 * request through a retrying client is exactly one retry). Sends `{ port }` to the parent over IPC
 * once listening.
 */
import { createServer } from 'node:http';
import { answerer } from './answers.ts';

const answers = answerer();
let requests = 0;

const server = createServer((req, res) => {
  requests++;
  const { status, body } = answers.answer(req.url ?? '/');
  res.statusCode = status;
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
  if (message === 'stats') process.send?.({ requests, pendingFlaky: answers.pendingFlaky });
  if (message === 'stop') {
    server.closeAllConnections();
    server.close(() => process.disconnect());
  }
});
