/**
 * A byte relay between a client's TLS socket and a `node:http2` server session, reading the frames
 * the session sends so that the scripted server can
 * - send a GOAWAY whose last stream id is below the stream just received (`node:http2` cannot:
 *   `session.goaway(code, id)` takes any id <= 0 as "the last stream received", so a GOAWAY naming
 *   no stream, the only one below stream 1, cannot be sent through it), written whole between two
 *   of the session's frames;
 * - keep the session from naming a higher last stream id in a later GOAWAY (its own, on close), as
 *   RFC 9113 §6.8 forbids;
 * - reset a stream in the middle of its body: `node:http2`'s `stream.close(code)` first ends the
 *   stream (an empty DATA frame with END_STREAM), so the client would see a short body ended
 *   cleanly rather than a reset;
 * - wait until given frames (a GOAWAY, the DATA of a stream) are handed to the socket, so that a
 *   RST_STREAM or a lost connection comes after them.
 * The relay does not parse what the client sends.
 */
import { type Duplex, duplexPair } from 'node:stream';
import type { TLSSocket } from 'node:tls';

export const FRAME_DATA = 0x0;
export const FRAME_HEADERS = 0x1;
export const FRAME_RST_STREAM = 0x3;
export const FRAME_GOAWAY = 0x7;

/** One frame the session sent, as it was handed to the socket. */
export interface SentFrame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  /** Payload bytes (DATA: body bytes plus any padding). */
  readonly length: number;
}

const HEADER = 9;

const goawayFrame = (lastStreamId: number, code: number): Buffer => {
  const frame = Buffer.alloc(HEADER + 8);
  frame.writeUIntBE(8, 0, 3);
  frame[3] = FRAME_GOAWAY;
  frame.writeUInt32BE(lastStreamId & 0x7fffffff, HEADER);
  frame.writeUInt32BE(code, HEADER + 4);
  return frame;
};

const rstStreamFrame = (streamId: number, code: number): Buffer => {
  const frame = Buffer.alloc(HEADER + 4);
  frame.writeUIntBE(4, 0, 3);
  frame[3] = FRAME_RST_STREAM;
  frame.writeUInt32BE(streamId & 0x7fffffff, 5);
  frame.writeUInt32BE(code, HEADER);
  return frame;
};

export class FrameRelay {
  /** The side to hand to the HTTP/2 server (`http2Server.emit('connection', relay.session)`). */
  readonly session: Duplex;
  readonly #socket: TLSSocket;
  readonly #outer: Duplex;
  #pending: Buffer = Buffer.alloc(0);
  #framesOut = 0;
  readonly #injected: Buffer[] = [];
  /** Streams this relay reset itself: the session's later frames for them are not sent. */
  readonly #cut = new Set<number>();
  /** The last stream id of the GOAWAY this relay sent itself, which later GOAWAYs must not exceed. */
  #goawayCap: number | undefined;
  readonly #listeners = new Set<(frame: SentFrame) => void>();
  readonly #flushWaiters = new Set<{ test: (frame: SentFrame) => boolean; done: () => void }>();

  constructor(socket: TLSSocket) {
    this.#socket = socket;
    const [inner, outer] = duplexPair();
    this.session = inner;
    this.#outer = outer;
    socket.on('error', () => {});
    outer.on('error', () => {});
    inner.on('error', () => {});
    socket.pipe(outer);
    outer.on('data', (chunk: Buffer) => this.#fromSession(chunk));
    // The session ended its side: flush what it sent, then close the connection.
    outer.on('end', () => {
      if (!socket.destroyed) socket.end(() => socket.destroy());
    });
    socket.on('close', () => {
      this.#listeners.clear();
      outer.destroy();
      inner.destroy();
    });
  }

  /** Called with every frame as it is handed to the socket (before it is flushed); returns an unsubscribe. */
  onFrame(listener: (frame: SentFrame) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves once a frame `test` accepts has been flushed to the kernel, so that destroying the
   * connection then cannot lose it (or once the connection closed). `test` sees every frame, in order.
   */
  waitForFrame(test: (frame: SentFrame) => boolean): Promise<void> {
    return new Promise((resolve) => {
      if (this.#socket.destroyed) return resolve();
      const done = (): void => {
        this.#flushWaiters.delete(waiter);
        this.#socket.off('close', done);
        resolve();
      };
      const waiter = { test, done };
      this.#flushWaiters.add(waiter);
      this.#socket.once('close', done);
    });
  }

  /**
   * Sends GOAWAY(`lastStreamId`, `code`) after the frame the session is writing now, and caps the
   * last stream id of the session's own later GOAWAYs at `lastStreamId`.
   */
  injectGoaway(lastStreamId: number, code: number): void {
    this.#goawayCap = Math.min(this.#goawayCap ?? lastStreamId, lastStreamId);
    this.#inject(goawayFrame(lastStreamId, code));
  }

  /**
   * Sends RST_STREAM(`code`) for the stream after the frame the session is writing now, and drops
   * the session's later frames for that stream (its own end or reset once the server lets go of it).
   */
  resetStream(streamId: number, code: number): void {
    this.#cut.add(streamId);
    this.#inject(rstStreamFrame(streamId, code));
  }

  /** Loses the connection at once (no GOAWAY, no TLS close_notify). */
  destroy(): void {
    this.#socket.destroy();
  }

  #inject(frame: Buffer): void {
    this.#injected.push(frame);
    // Not before the session's first frame (its SETTINGS, the connection preface) nor inside a frame.
    if (this.#framesOut > 0 && this.#pending.length === 0) this.#flushInjected();
  }

  #fromSession(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    while (this.#pending.length >= HEADER) {
      const length = this.#pending.readUIntBE(0, 3);
      if (this.#pending.length < HEADER + length) break;
      const frame = this.#pending.subarray(0, HEADER + length);
      this.#pending = this.#pending.subarray(HEADER + length);
      this.#forward(frame);
      this.#flushInjected();
    }
  }

  #forward(frame: Buffer): void {
    const sent: SentFrame = {
      type: frame[3]!,
      flags: frame[4]!,
      streamId: frame.readUInt32BE(5) & 0x7fffffff,
      length: frame.length - HEADER,
    };
    if (this.#cut.has(sent.streamId)) return;
    if (sent.type === FRAME_GOAWAY && this.#goawayCap !== undefined) {
      const last = frame.readUInt32BE(HEADER) & 0x7fffffff;
      if (last > this.#goawayCap) frame.writeUInt32BE(this.#goawayCap, HEADER);
    }
    this.#framesOut++;
    this.#write(frame, sent);
  }

  #flushInjected(): void {
    if (this.#framesOut === 0) return;
    for (const frame of this.#injected.splice(0)) {
      const streamId = frame.readUInt32BE(5) & 0x7fffffff;
      this.#write(frame, { type: frame[3]!, flags: 0, streamId, length: frame.length - HEADER });
    }
  }

  #write(frame: Buffer, sent: SentFrame): void {
    if (this.#socket.destroyed) return;
    for (const listener of [...this.#listeners]) listener(sent);
    const flushed = [...this.#flushWaiters].filter((w) => w.test(sent));
    for (const waiter of flushed) this.#flushWaiters.delete(waiter);
    const more = this.#socket.write(frame, () => {
      for (const waiter of flushed) waiter.done();
    });
    // Backpressure: stop reading the session until the socket drains.
    if (!more && !this.#outer.isPaused()) {
      this.#outer.pause();
      this.#socket.once('drain', () => this.#outer.resume());
    }
  }
}
