/**
 * The attributes that describe a request on metric points and span events, as the HTTP semantic
 * conventions spell them, kept low in cardinality (no full URL, no path: metrics must not grow a
 * series per URL).
 */
import { errorCode } from '@jitterbug/core/adapter';
import type { Attributes } from '@opentelemetry/api';
import { ATTRIBUTES } from './names.ts';

/** The methods the conventions name; any other is `_OTHER`. */
const KNOWN_METHODS = new Set([
  'CONNECT',
  'DELETE',
  'GET',
  'HEAD',
  'OPTIONS',
  'PATCH',
  'POST',
  'PUT',
  'QUERY',
  'TRACE',
]);

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

const parseUrl = (url: string): URL | undefined => {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
};

/**
 * `http.request.method`, `server.address`, `server.port` and, when a route rule matched,
 * `jitterbug.route`. A URL that does not parse (a relative one, outside a browser) gives no server.
 */
export const requestAttributes = (method: string, url: string, route: string | undefined): Attributes => {
  const attributes: Attributes = {
    [ATTRIBUTES.method]: KNOWN_METHODS.has(method) ? method : '_OTHER',
  };
  const parsed = parseUrl(url);
  if (parsed) {
    attributes[ATTRIBUTES.serverAddress] = parsed.hostname;
    const port = parsed.port === '' ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
    if (port !== undefined) attributes[ATTRIBUTES.serverPort] = port;
  }
  if (route !== undefined) attributes[ATTRIBUTES.route] = route;
  return attributes;
};

/**
 * `error.type` for an attempt that failed without a response: the code the decision read (`known`,
 * from `jitterbug:attempt:end`), else the code on the error's `cause` chain, else its name, else
 * `_OTHER` (the conventions' fallback).
 */
export const errorType = (error: unknown, known: string | undefined): string => {
  const code = known ?? errorCode(error);
  if (code !== undefined) return code;
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return typeof name === 'string' && name !== '' ? name : '_OTHER';
};

/** `http.response.status_code` when the attempt got a response, else `error.type`. */
export const outcomeAttributes = (
  status: number | undefined,
  error: unknown,
  knownCode: string | undefined,
): Attributes =>
  status !== undefined
    ? { [ATTRIBUTES.statusCode]: status }
    : { [ATTRIBUTES.errorType]: errorType(error, knownCode) };
