/**
 * `Proxy-Status` (RFC 9209): which answers prove that no intermediary sent the request on. The
 * examples are the RFC's own where it gives them.
 */

import { describe, expect, it } from 'vitest';
import { NOT_FORWARDED_ERRORS, notForwarded, parseProxyStatus } from '../src/proxy-status.ts';
import { headers } from './helpers.ts';

const proxyStatus = (value: string) => headers({ 'proxy-status': value });

describe('parseProxyStatus', () => {
  it('reads each intermediary, nearest the origin first, with its error', () => {
    expect(parseProxyStatus('revproxy1.example.net, ExampleCDN')).toEqual([
      { name: 'revproxy1.example.net', error: undefined },
      { name: 'ExampleCDN', error: undefined },
    ]);
    expect(parseProxyStatus('SomeReverseProxy; error=http_request_error, SomeCDN')).toEqual([
      { name: 'SomeReverseProxy', error: 'http_request_error' },
      { name: 'SomeCDN', error: undefined },
    ]);
    expect(
      parseProxyStatus('"proxy.example.org"; next-hop=backend.example.org:8001; error=connection_refused'),
    ).toEqual([{ name: 'proxy.example.org', error: 'connection_refused' }]);
    // Other parameters, known or not, are ignored (RFC 9209 §2.1); a key given twice keeps its last.
    expect(
      parseProxyStatus(
        'cdn; received-status=502; details="upstream down"; error=dns_error; error=dns_timeout',
      ),
    ).toEqual([{ name: 'cdn', error: 'dns_timeout' }]);
  });

  it('refuses a field that breaks the rules, as a whole', () => {
    for (const value of [
      '', // empty
      'cdn;', // a parameter without a key
      'cdn, ', // a trailing comma
      '(a b); error=connection_refused', // a member must be a Token or a String
      '12; error=connection_refused',
      'cdn; error="connection_refused"', // `error` must be a Token
      'cdn; error=1',
      'cdn; error=?1',
      'cdn error=connection_refused',
    ]) {
      expect(parseProxyStatus(value), value).toBeUndefined();
    }
    expect(parseProxyStatus(undefined)).toBeUndefined();
    expect(parseProxyStatus(null)).toBeUndefined();
  });
});

describe('notForwarded: an answer that proves the request was not sent on', () => {
  it('each error type of the list, on a 500, 502, 503 or 504 from the intermediary that made it', () => {
    for (const error of NOT_FORWARDED_ERRORS) {
      for (const status of [500, 502, 503, 504]) {
        expect(notForwarded(status, proxyStatus(`lb; error=${error}`))).toBe(error);
      }
    }
    // Intermediaries nearer the client that only passed the answer on change nothing.
    expect(
      notForwarded(
        502,
        proxyStatus('lb; error=connection_refused; next-hop=app:8080, cdn; received-status=502'),
      ),
    ).toBe('connection_refused');
  });

  it('the error types that say the next hop may have had the request prove nothing', () => {
    for (const error of [
      'connection_terminated',
      'connection_read_timeout',
      'connection_write_timeout',
      'tls_protocol_error',
      'tls_alert_received',
      'http_response_timeout',
      'http_response_incomplete',
      'http_response_header_section_size',
      'http_response_body_size',
      'http_protocol_error',
      'http_upgrade_failed',
      'http_request_denied',
      'http_request_error',
      'proxy_internal_error',
      'proxy_configuration_error',
      'proxy_internal_response',
      'proxy_loop_detected',
      'some_vendor_error',
    ]) {
      expect(notForwarded(502, proxyStatus(`lb; error=${error}`)), error).toBeUndefined();
    }
  });

  it('only the member nearest the origin, which made the answer, proves it; any later error spoils it', () => {
    // The error is on an intermediary nearer the client than one that passed an answer on to it:
    // the request went past the first one.
    expect(notForwarded(502, proxyStatus('lb, cdn; error=connection_refused'))).toBeUndefined();
    // Two intermediaries say they failed: the field contradicts itself.
    expect(
      notForwarded(502, proxyStatus('lb; error=connection_refused, cdn; error=http_response_incomplete')),
    ).toBeUndefined();
    expect(
      notForwarded(502, proxyStatus('lb; error=connection_refused, cdn; error=connection_refused')),
    ).toBeUndefined();
  });

  it('other statuses, no field, or a field that does not parse prove nothing', () => {
    for (const status of [200, 400, 429, 501, 505]) {
      expect(notForwarded(status, proxyStatus('lb; error=connection_refused'))).toBeUndefined();
    }
    expect(notForwarded(502, headers())).toBeUndefined();
    expect(notForwarded(502, undefined)).toBeUndefined();
    expect(notForwarded(undefined, proxyStatus('lb; error=connection_refused'))).toBeUndefined();
    expect(notForwarded(502, proxyStatus('lb; error=connection_refused,'))).toBeUndefined();
    expect(notForwarded(502, proxyStatus('lb; error="connection_refused"'))).toBeUndefined();
  });
});
