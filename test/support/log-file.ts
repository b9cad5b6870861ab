/**
 * A server's log file as a test reads it: the lines written so far, or those once the server has
 * stopped writing. A server writes a request's line as it finishes the request, just after its last
 * byte went out, so a client can have its answer a moment before the line exists.
 */
import { readFile } from 'node:fs/promises';
import { sleep } from './child-process.ts';

/** What every server's log of ours says of a request. */
export interface RequestLogLine {
  /** When the server had the request's first bytes (its end less its duration), epoch ms. */
  readonly startMs: number;
  /** When it ended (the line was written), epoch ms. */
  readonly endMs: number;
  /** The status the server sent. */
  readonly status: number;
  readonly method: string;
  /** The path, without the query. */
  readonly uri: string;
  /** `HTTP/1.1`, `HTTP/2.0`. */
  readonly protocol: string;
  readonly idempotencyKey: string | undefined;
}

export interface LogFile<Line> {
  readonly path: string;
  /** The lines written so far. */
  read(): Promise<Line[]>;
  /**
   * The lines once the server has written every line of the requests that ended: waits until the
   * log has not grown for `quietMs` (at most `timeoutMs`).
   */
  settled(quietMs?: number, timeoutMs?: number): Promise<Line[]>;
}

/** The log at `path`, its text read by `parse` (a missing file is an empty log). */
export const logFile = <Line>(path: string, parse: (text: string) => Line[]): LogFile<Line> => {
  const text = () => readFile(path, 'utf8').catch(() => '');
  return {
    path,
    read: async () => parse(await text()),
    async settled(quietMs = 60, timeoutMs = 2_000) {
      const until = Date.now() + timeoutMs;
      let last = await text();
      let since = Date.now();
      while (Date.now() < until) {
        await sleep(10);
        const now = await text();
        if (now.length !== last.length) {
          last = now;
          since = Date.now();
        } else if (Date.now() - since >= quietMs) break;
      }
      return parse(last);
    },
  };
};
