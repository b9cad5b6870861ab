/**
 * nginx's own record of what reached it: one line per request it processed (a refused HTTP/2 stream
 * above a GOAWAY's last stream id never gets one), written when the request ends, in a format of
 * ours that tests read back: when it arrived and ended, its status, method, path, protocol,
 * connection and the `Idempotency-Key` it carried.
 */
import { type LogFile, logFile, type RequestLogLine } from '../log-file.ts';

/**
 * The `log_format` (with `escape=json`: an absent header is an empty field). `$msec` is when the
 * request ended, `$request_time` how long it took, both to the millisecond.
 */
export const ACCESS_LOG_FORMAT = [
  '$msec',
  '$request_time',
  '$status',
  '$request_method',
  '$uri',
  '$server_protocol',
  '$connection',
  '$connection_requests',
  '$server_port',
  '$http_idempotency_key',
  '$upstream_status',
].join('|');

export interface AccessLogLine extends RequestLogLine {
  /** nginx's serial number of the connection, and which request on it this was (1-based). */
  readonly connection: number;
  readonly connectionRequest: number;
  readonly port: number;
  /** The backend's status, when nginx asked it (`502`/`504` for one that failed, `undefined` for nginx's own answers). */
  readonly upstreamStatus: number | undefined;
}

const FIELDS = ACCESS_LOG_FORMAT.split('|').length;

/** Parses the log's text; a line that does not have the format's fields is an error (the log is ours). */
export const parseAccessLog = (text: string): AccessLogLine[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const f = line.split('|');
      if (f.length !== FIELDS) throw new Error(`not a line of our access log format: ${line}`);
      const endMs = Math.round(Number(f[0]) * 1000);
      const upstream = Number.parseInt(f[10]!, 10);
      return {
        startMs: endMs - Math.round(Number(f[1]) * 1000),
        endMs,
        status: Number(f[2]),
        method: f[3]!,
        uri: f[4]!,
        protocol: f[5]!,
        connection: Number(f[6]),
        connectionRequest: Number(f[7]),
        port: Number(f[8]),
        idempotencyKey: f[9] === '' ? undefined : f[9],
        upstreamStatus: Number.isNaN(upstream) ? undefined : upstream,
      };
    });

/** nginx's access log (see `LogFile` for when a line is there). */
export type AccessLog = LogFile<AccessLogLine>;

export const accessLog = (path: string): AccessLog => logFile(path, parseAccessLog);
