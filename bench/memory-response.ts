/**
 * The response the loopback server sends for an answer, in the pieces a client's transport hands
 * over: the status, the headers Node's `http` server sends (the server's two and Node's `Date`,
 * `Connection`, `Keep-Alive`), and the body cut as the socket reads cut it. The in-memory transports
 * (`memory-dispatcher.ts`, `memory-fetch.ts`, `memory-adapter.ts`) answer with it, so that a client
 * does the same work per response as over loopback, less the socket and the HTTP parser.
 */
import type { Answer } from './answers.ts';

/** libuv reads a socket 64 KiB at a time: a 64 KB body reached undici, fetch and axios as 65,377 + 34 bytes. */
const READ_BYTES = 65_536;
/** A fixed date: the header's length, the only thing about it a client's work depends on, is always the same. */
const DATE = 'Wed, 25 Nov 2026 10:58:36 GMT';
const STATUS_TEXT: Readonly<Record<number, string>> = { 200: 'OK', 503: 'Service Unavailable' };

export interface MemoryResponse {
  readonly status: number;
  readonly statusText: string;
  /** Name, value, in the order the server sends them (names as it spells them). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
  /** Where each socket read ends within the body. */
  readonly chunkEnds: readonly number[];
}

const made = new WeakMap<Answer, MemoryResponse>();

const build = ({ status, body }: Answer): MemoryResponse => {
  const statusText = STATUS_TEXT[status] ?? '';
  const headers: (readonly [string, string])[] = [
    ['content-type', 'application/json'],
    ['content-length', String(body.length)],
    ['Date', DATE],
    ['Connection', 'keep-alive'],
    ['Keep-Alive', 'timeout=60'],
  ];
  const head = `HTTP/1.1 ${status} ${statusText}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
  const chunkEnds: number[] = [];
  for (let end = READ_BYTES - head.length; ; end += READ_BYTES) {
    chunkEnds.push(Math.min(end, body.length));
    if (end >= body.length) break;
  }
  return { status, statusText, headers, body, chunkEnds };
};

/** The response for `answer` (made once per answer: the transports' own work stays small and fixed). */
export const memoryResponse = (answer: Answer): MemoryResponse => {
  let response = made.get(answer);
  if (!response) {
    response = build(answer);
    made.set(answer, response);
  }
  return response;
};

/** The body's socket reads, as new views (a socket read is a new buffer each time). */
export const bodyChunks = (response: MemoryResponse): Buffer[] => {
  const chunks: Buffer[] = [];
  let start = 0;
  for (const end of response.chunkEnds) {
    chunks.push(response.body.subarray(start, end));
    start = end;
  }
  return chunks;
};

/** The headers as a parser hands them over (undici's, Node's `IncomingMessage`): a new object, lower-case names. */
export const headerObject = (response: MemoryResponse): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name.toLowerCase()] = value;
  return headers;
};

/** The path and query of an absolute URL or of a path. */
export const pathOf = (url: string): string => {
  const scheme = url.indexOf('//');
  if (scheme < 0) return url;
  const path = url.indexOf('/', scheme + 2);
  return path < 0 ? '/' : url.slice(path);
};
