/**
 * HAProxy's own record of what reached it: one line per request (an HTTP/2 stream it refused, or a
 * request on a connection it closed before reading it, never gets one), written as the request
 * ends, in a `log-format` of ours that tests read back.
 */
import { type LogFile, logFile, type RequestLogLine } from '../log-file.ts';

/**
 * The `log-format`: when the request ended (epoch ms), how long it was active (`%Ta`), the status
 * sent, method, path without the query, protocol, the client's port (one per connection), the
 * termination state, the server that answered (`<NOSRV>` for HAProxy's own answers), the captured
 * `Idempotency-Key` (`-` for none) and the server's response time (`-1` when it gave none).
 */
export const HAPROXY_LOG_FORMAT = '%[date(0,ms)]|%Ta|%ST|%HM|%HPO|%HV|%cp|%ts|%s|%[capture.req.hdr(0)]|%Tr';

export interface HaproxyLogLine extends RequestLogLine {
  /** The client's port: every request of one connection has the same. */
  readonly clientPort: number;
  /** HAProxy's two-letter termination state: `--` for a normal end, `sH` a server timeout, `SC` a refused connection. */
  readonly termination: string;
  /** The request went to the backend server (`undefined`: HAProxy answered it itself, a 429 or a 503 with no server). */
  readonly server: string | undefined;
  /** The server's time to its response headers, ms; `undefined` when it sent none. */
  readonly serverMs: number | undefined;
}

const FIELDS = HAPROXY_LOG_FORMAT.split('|').length;

/**
 * HAProxy's own lines in the same log, about no request: a connection that failed before any
 * request, in a format of its own (`127.0.0.1:47472 [01/Dec/2026:20:19:24.720] api/1: Connection
 * closed during SSL handshake`; `error-log-format` came in 2.7), and a worker stopping its proxies
 * on a reload or a stop (`Proxy api stopped (cumulated conns: FE: 47, BE: 0).`).
 */
const OWN_LINES = [
  /^[\d.:]+ \[[^\]]+\] \S+: /,
  /^Proxy \S+ (started|stopped)/,
  /^Stopping (frontend|backend|proxy) /,
];

/**
 * Parses the log's text: the requests' lines (HAProxy's own lines are left out); any other line is
 * an error (the log is ours).
 */
export const parseHaproxyLog = (text: string): HaproxyLogLine[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !OWN_LINES.some((own) => own.test(line)))
    .map((line) => {
      const f = line.split('|');
      if (f.length !== FIELDS) throw new Error(`not a line of our HAProxy log format: ${line}`);
      const endMs = Number(f[0]);
      const serverMs = Number(f[10]);
      return {
        startMs: endMs - Number(f[1]),
        endMs,
        status: Number(f[2]),
        method: f[3]!,
        uri: f[4]!,
        protocol: f[5]!,
        clientPort: Number(f[6]),
        termination: f[7]!,
        server: f[8] === '<NOSRV>' ? undefined : f[8],
        idempotencyKey: f[9] === '-' ? undefined : f[9],
        serverMs: serverMs < 0 ? undefined : serverMs,
      };
    });

/** HAProxy's log (see `LogFile` for when a line is there). */
export type HaproxyLog = LogFile<HaproxyLogLine>;

export const haproxyLog = (path: string): HaproxyLog => logFile(path, parseHaproxyLog);
