/**
 * What a test sees of a reverse proxy it started in front of its Node backend (HAProxy, Caddy): one
 * TLS port serving HTTP/2 and HTTP/1.1, the certificate to trust, its log of the requests, a
 * graceful reload as an operator makes one, and its stop. Scenarios written against this run
 * against either.
 */
import type { LogFile, RequestLogLine } from './log-file.ts';

export interface RunningProxy<Line extends RequestLogLine = RequestLogLine> {
  /** The pid the harness started (HAProxy's master). */
  readonly pid: number;
  /** The run's folder: config, certificate, logs. */
  readonly dir: string;
  /** The certificate to trust (a client's `ca`). */
  readonly ca: string;
  /** The config it was started with, as written. */
  readonly config: string;
  readonly port: number;
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  readonly log: LogFile<Line>;
  /** Reloads gracefully; resolves once the new config serves, rejects with the server's words. */
  reload(): Promise<void>;
  /** TERM, then KILL after `graceMs`; then the folder is removed. Safe to call twice. */
  stop(graceMs?: number): Promise<void>;
}
