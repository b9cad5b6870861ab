/** The request's attributes on metric points and events, as the HTTP semantic conventions spell them. */
import { AttemptTimeoutError } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { errorType, requestAttributes } from '../src/request-attributes.ts';

describe('requestAttributes', () => {
  it('a known method, the host and the scheme default port, the route when one matched', () => {
    expect(requestAttributes('GET', 'https://api.example.com/orders/42?x=1', 'orders')).toEqual({
      'http.request.method': 'GET',
      'server.address': 'api.example.com',
      'server.port': 443,
      'jitterbug.route': 'orders',
    });
    expect(requestAttributes('QUERY', 'http://[::1]:8080/', undefined)).toEqual({
      'http.request.method': 'QUERY',
      'server.address': '[::1]',
      'server.port': 8080,
    });
  });

  it('a method the conventions do not list is _OTHER; a URL that does not parse gives no server', () => {
    expect(requestAttributes('PROPFIND', '/relative/path', undefined)).toEqual({
      'http.request.method': '_OTHER',
    });
  });
});

describe('errorType', () => {
  it('the code the decision read, else the code on the cause chain, else the name, else _OTHER', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(errorType(new TypeError('fetch failed'), 'ERR_NETWORK')).toBe('ERR_NETWORK');
    expect(errorType(new TypeError('fetch failed', { cause: reset }), undefined)).toBe('ECONNRESET');
    expect(errorType(new AttemptTimeoutError(100), undefined)).toBe('ERR_JITTERBUG_ATTEMPT_TIMEOUT');
    expect(errorType(new RangeError('x'), undefined)).toBe('RangeError');
    expect(errorType('a string thrown', undefined)).toBe('_OTHER');
    expect(errorType(undefined, undefined)).toBe('_OTHER');
  });
});
