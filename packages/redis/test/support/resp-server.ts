/**
 * A real TCP server on 127.0.0.1 that speaks RESP and scripts how it answers: what a real Redis
 * cannot be made to do on demand (answer `LOADING`, answer a script with the wrong shape, accept a
 * connection and never answer). Every command it is sent is recorded; `answer` says what to send
 * back for each (`undefined`: `+OK`, as to node-redis' connection set-up; `'never'`: nothing).
 */
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';

export type Answer = string | 'never' | undefined;

export interface RespServer {
  readonly port: number;
  readonly url: string;
  /** Every command received, as its arguments. */
  readonly commands: string[][];
  close(): Promise<void>;
}

/** RESP for a bulk string, an array of bulk strings, an error. */
export const bulk = (s: string): string => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
export const array = (items: readonly string[]): string => `*${items.length}\r\n${items.map(bulk).join('')}`;
export const errorReply = (message: string): string => `-${message}\r\n`;

/** The commands complete in `buffer` from `at`, and where the incomplete rest starts. */
const parseCommands = (buffer: string): { commands: string[][]; rest: string } => {
  const commands: string[][] = [];
  let at = 0;
  for (;;) {
    if (buffer[at] !== '*') break;
    const line = buffer.indexOf('\r\n', at);
    if (line === -1) break;
    const count = Number(buffer.slice(at + 1, line));
    let p = line + 2;
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      const l = buffer.indexOf('\r\n', p);
      if (l === -1 || buffer[p] !== '$') return { commands, rest: buffer.slice(at) };
      const n = Number(buffer.slice(p + 1, l));
      if (buffer.length < l + 2 + n + 2) return { commands, rest: buffer.slice(at) };
      args.push(buffer.slice(l + 2, l + 2 + n));
      p = l + 2 + n + 2;
    }
    if (args.length < count) break;
    commands.push(args);
    at = p;
  }
  return { commands, rest: buffer.slice(at) };
};

export const startRespServer = async (answer: (command: string[]) => Answer): Promise<RespServer> => {
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      const parsed = parseCommands(pending + chunk.toString('latin1'));
      pending = parsed.rest;
      for (const command of parsed.commands) {
        commands.push(command);
        const reply = answer(command);
        if (reply !== 'never') socket.write(reply ?? '+OK\r\n');
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    commands,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
