/**
 * How the HTTP/2 scripted server carries out each step on a stream: an answer (after a GOAWAY when
 * the step asks for one), RST_STREAM or a lost connection before the headers or mid-body, and the
 * GOAWAY below a stream that refuses it and every later one. The wire-level parts (a GOAWAY naming
 * no stream, a reset mid-body) go through the connection's `FrameRelay`.
 */
import { once } from 'node:events';
import { constants, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import type { Writable } from 'node:stream';
import {
  FRAME_DATA,
  FRAME_GOAWAY,
  FRAME_HEADERS,
  FRAME_RST_STREAM,
  type FrameRelay,
} from './h2-frame-relay.ts';
import {
  H2_ERROR_CODES,
  type H2ErrorName,
  type H2SeenRequest,
  type H2SentResponse,
  type H2Step,
} from './h2-steps.ts';

/** One client connection: its relay, its session, and what its GOAWAYs promised. */
export interface Connection {
  readonly id: number;
  readonly relay: FrameRelay;
  session?: ServerHttp2Session;
  /** The last stream id of a GOAWAY below a stream: every later stream is refused. */
  refusedAbove?: number;
  /** The highest stream id the application took on. */
  maxProcessed: number;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x61);
const { HTTP2_HEADER_STATUS, HTTP2_HEADER_CONTENT_LENGTH, HTTP2_HEADER_CONTENT_TYPE } = constants;
/** The END_STREAM flag of DATA and HEADERS frames. */
const END_STREAM = 0x1;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export const readBody = (stream: ServerHttp2Stream, seen: H2SeenRequest): Promise<void> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => {
      seen.body = Buffer.concat(chunks);
      // node:http2 ends the readable side of a stream that is reset, or whose connection is lost,
      // too (after closing it): the body came in full only if it ended on a stream still open.
      seen.bodyComplete = !stream.closed;
      resolve();
    });
    stream.once('close', () => {
      seen.body = Buffer.concat(chunks);
      resolve();
    });
  });

/** Writes `bytes` bytes with backpressure; stops when the stream goes away. */
const writeBody = async (out: Writable, bytes: number, sent: H2SentResponse): Promise<void> => {
  let left = bytes;
  while (left > 0 && !out.destroyed) {
    const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
    left -= chunk.length;
    sent.bytesWritten += chunk.length;
    if (!out.write(chunk)) {
      const drained = await new Promise<boolean>((resolve) => {
        const done = (ok: boolean) => () => {
          out.off('drain', onDrain);
          out.off('close', onClose);
          resolve(ok);
        };
        const onDrain = done(true);
        const onClose = done(false);
        out.on('drain', onDrain);
        out.on('close', onClose);
      });
      if (!drained) return;
    }
  }
};

export const closeStream = (stream: ServerHttp2Stream, code: H2ErrorName): void => {
  if (!stream.closed && !stream.destroyed) stream.close(H2_ERROR_CODES[code]);
};

/** Resolves once the stream's headers and `bytes` body bytes were handed to the socket (or it closed). */
const dataSent = (relay: FrameRelay, streamId: number, bytes: number): Promise<void> => {
  let headers = false;
  let sent = 0;
  return relay.waitForFrame((f) => {
    if (f.streamId !== streamId) return false;
    if (f.type === FRAME_HEADERS) headers = true;
    if (f.type === FRAME_DATA) sent += f.length;
    return headers && sent >= bytes;
  });
};

/** Sends this connection's GOAWAY naming every stream received so far, once written. */
export const goawayIncluding = (conn: Connection, code: H2ErrorName): Promise<void> => {
  const session = conn.session;
  if (!session || session.closed || session.destroyed) return Promise.resolve();
  const written = conn.relay.waitForFrame((f) => f.type === FRAME_GOAWAY);
  session.goaway(H2_ERROR_CODES[code]);
  return written;
};

/** Closes the session once its streams are done (its own GOAWAY, capped by the relay). */
export const closeWhenDone = (conn: Connection): void => {
  const session = conn.session;
  if (session && !session.closed && !session.destroyed) session.close();
};

/** Thrown when a GOAWAY below a stream would be a lie about a later stream already taken on. */
export class GoawayWouldLie extends Error {}

const gone = (stream: ServerHttp2Stream): boolean => stream.destroyed || stream.closed;

/** GOAWAY below `streamId`: that stream and every later one on the connection are refused. */
const refuseBelow = (
  stream: ServerHttp2Stream,
  streamId: number,
  conn: Connection,
  code: H2ErrorName,
): void => {
  // A later stream already taken on (by a script that answered after reading its body) would be
  // named unprocessed too: lose the connection instead, which claims nothing.
  if (conn.maxProcessed > streamId) throw new GoawayWouldLie(`stream ${conn.maxProcessed} was processed`);
  const last = Math.max(0, streamId - 2);
  conn.refusedAbove = Math.min(conn.refusedAbove ?? last, last);
  conn.relay.injectGoaway(last, H2_ERROR_CODES[code]);
  closeStream(stream, 'REFUSED_STREAM');
  closeWhenDone(conn);
};

/** A `destroy: 'before-headers'` step: RST_STREAM, a GOAWAY, or the connection lost. */
const failBeforeHeaders = async (
  stream: ServerHttp2Stream,
  streamId: number,
  conn: Connection,
  step: Extract<H2Step, { destroy: 'before-headers' }>,
): Promise<void> => {
  if ('goaway' in step) {
    if (step.goaway === 'below') return refuseBelow(stream, streamId, conn, step.goawayCode ?? 'NO_ERROR');
    await goawayIncluding(conn, step.goawayCode ?? 'NO_ERROR');
    if (step.delayMs) await sleep(step.delayMs);
    return conn.relay.destroy();
  }
  if (step.delayMs) await sleep(step.delayMs);
  if ('rst' in step) closeStream(stream, step.rst);
  else conn.relay.destroy();
};

/** A `destroy: 'mid-body'` step: headers and part of the body, then RST_STREAM or the connection lost. */
const failMidBody = async (
  stream: ServerHttp2Stream,
  streamId: number,
  conn: Connection,
  step: Extract<H2Step, { destroy: 'mid-body' }>,
  sent: H2SentResponse,
): Promise<void> => {
  if (gone(stream)) return;
  const total = step.declaredBytes ?? 1000;
  const part = Buffer.alloc(step.sentBytes ?? Math.floor(total / 2), 0x62);
  const written = dataSent(conn.relay, streamId, part.length);
  stream.respond({
    [HTTP2_HEADER_STATUS]: step.status ?? 200,
    [HTTP2_HEADER_CONTENT_TYPE]: 'text/plain',
    [HTTP2_HEADER_CONTENT_LENGTH]: String(total),
  });
  sent.bytesWritten = part.length;
  stream.write(part);
  await written;
  if (!('rst' in step)) return conn.relay.destroy();
  conn.relay.resetStream(streamId, H2_ERROR_CODES[step.rst]);
  closeStream(stream, step.rst);
};

/** A step with a status: the answer, after a GOAWAY when it asks for one. */
const answer = async (
  stream: ServerHttp2Stream,
  conn: Connection,
  step: Extract<H2Step, { status: number }>,
  sent: H2SentResponse,
): Promise<void> => {
  if ('goaway' in step) {
    await goawayIncluding(conn, step.goawayCode ?? 'NO_ERROR');
    closeWhenDone(conn);
  }
  if (step.held) {
    if (!gone(stream)) await once(stream, 'close');
    return;
  }
  if (step.delayMs) await sleep(step.delayMs);
  if (gone(stream)) return;
  // Finished when END_STREAM goes to the socket: before the client can have seen the end (the
  // server's stream may close earlier, while its last frames are still on their way).
  const id = stream.id;
  const off = conn.relay.onFrame((f) => {
    if (f.streamId !== id) return;
    if (f.type === FRAME_RST_STREAM) off();
    else if (f.type <= FRAME_HEADERS && f.flags & END_STREAM) {
      sent.finished = true;
      off();
    }
  });
  const headers: Record<string, string | number> = {
    [HTTP2_HEADER_STATUS]: step.status,
    [HTTP2_HEADER_CONTENT_TYPE]: 'text/plain',
    ...step.headers,
  };
  if (step.bodyBytes !== undefined) {
    if (!step.chunked) headers[HTTP2_HEADER_CONTENT_LENGTH] = String(step.bodyBytes);
    stream.respond(headers);
    await writeBody(stream, step.bodyBytes, sent);
    if (!stream.destroyed) stream.end();
    return;
  }
  const body = step.body ?? '';
  headers[HTTP2_HEADER_CONTENT_LENGTH] = String(Buffer.byteLength(body));
  stream.respond(headers);
  sent.bytesWritten = Buffer.byteLength(body);
  stream.end(body);
};

/** Carries out one step on its stream. */
export const act = (
  stream: ServerHttp2Stream,
  streamId: number,
  conn: Connection,
  step: H2Step,
  sent: H2SentResponse,
): Promise<void> => {
  if (!('destroy' in step)) return answer(stream, conn, step, sent);
  if (step.destroy === 'before-headers') return failBeforeHeaders(stream, streamId, conn, step);
  return failMidBody(stream, streamId, conn, step, sent);
};
