/**
 * Discarding an answer that is not wanted (a response to retry, a hedged copy that lost): its body
 * is read and dropped so that its connection goes back to the pool, within `discardBodyMaxBytes`;
 * past that (declared or read), the attempt is aborted instead, which closes the connection. No big
 * error body is read or buffered.
 */
import type { BodySink, HeaderRecord } from './types.ts';

/** Who is told when the drain is over. */
export interface DrainOwner {
  /**
   * `closeWith`: the drain stopped past the limit, and the attempt must be aborted with this reason;
   * `undefined`: the body ended (drained in full, the connection kept) or failed.
   */
  drained(closeWith: Error | undefined): void;
}

export class Drain implements BodySink {
  declare private readonly owner: DrainOwner;
  declare private readonly maxBytes: number;
  /** What is dropped, for the reason its connection is closed with. */
  declare private readonly what: string;
  declare private bytes: number;

  constructor(owner: DrainOwner, maxBytes: number, what: string) {
    this.owner = owner;
    this.maxBytes = maxBytes;
    this.what = what;
    this.bytes = 0;
  }

  private close(): void {
    this.owner.drained(new Error(`jitterbug: ${this.what} after ${this.bytes} body bytes`));
  }

  /** Starts on the answer of a request with `method`: one that declares a body past the limit stops at once. */
  start(method: string, headers: HeaderRecord): void {
    // A HEAD answer declares the length of a body it does not have.
    if (method !== 'HEAD' && Number(headers['content-length']) > this.maxBytes) this.close();
  }

  data(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) this.close();
  }

  end(): void {
    this.owner.drained(undefined);
  }

  error(): void {
    this.owner.drained(undefined);
  }
}
