/**
 * Caddy's own record of what reached it: its access log in JSON, one object per request it handled
 * (written as the request ends), read back into the fields the tests compare.
 */
import { type LogFile, logFile, type RequestLogLine } from '../log-file.ts';

export interface CaddyLogLine extends RequestLogLine {
  /** The client's port: every request of one connection has the same. */
  readonly clientPort: number;
  /** Bytes of the response body Caddy wrote. */
  readonly size: number;
}

interface Entry {
  readonly ts: number;
  readonly duration: number;
  readonly status: number;
  readonly size: number;
  readonly request: {
    readonly method: string;
    readonly uri: string;
    readonly proto: string;
    readonly remote_port: string;
    readonly headers: Readonly<Record<string, readonly string[]>>;
  };
}

/** Parses the log's text (Caddy writes one JSON object a line); a line that is not one is an error. */
export const parseCaddyLog = (text: string): CaddyLogLine[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const entry = JSON.parse(line) as Entry;
      const { request } = entry;
      const endMs = Math.round(entry.ts * 1000);
      return {
        startMs: endMs - Math.round(entry.duration * 1000),
        endMs,
        status: entry.status,
        method: request.method,
        uri: request.uri.split('?')[0]!,
        protocol: request.proto,
        clientPort: Number(request.remote_port),
        idempotencyKey: request.headers['Idempotency-Key']?.[0],
        size: entry.size,
      };
    });

/** Caddy's access log (see `LogFile` for when a line is there). */
export type CaddyLog = LogFile<CaddyLogLine>;

export const caddyLog = (path: string): CaddyLog => logFile(path, parseCaddyLog);
