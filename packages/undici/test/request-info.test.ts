import { FormData as UndiciFormData } from 'undici';
import { describe, expect, test } from 'vitest';
import { declaredLength, requestBodyKind, requestHeaderGetter, requestUrl } from '../src/request-info.ts';

describe('requestHeaderGetter reads every header shape undici accepts, case-insensitively', () => {
  test.each([
    ['record', { 'Idempotency-Key': 'k', other: 'x' }],
    ['lower-case record', { 'idempotency-key': 'k' }],
    ['flat array', ['other', 'x', 'IDEMPOTENCY-KEY', 'k']],
    [
      'pairs',
      [
        ['other', 'x'],
        ['Idempotency-Key', 'k'],
      ],
    ],
    ['Headers', new Headers({ 'Idempotency-Key': 'k' })],
    ['Map', new Map([['Idempotency-Key', 'k']])],
  ])('%s', (_name, headers) => {
    const get = requestHeaderGetter(headers);
    expect(get('idempotency-key')).toBe('k');
    expect(get('missing')).toBeUndefined();
  });

  test('no headers, and multi-valued ones', () => {
    expect(requestHeaderGetter(undefined)('a')).toBeUndefined();
    expect(requestHeaderGetter(null)('a')).toBeUndefined();
    expect(requestHeaderGetter({ a: ['1', '2'] })('A')).toBe('1, 2');
  });
});

describe('requestUrl', () => {
  test('origin (string or URL) plus path; an absolute path wins; no origin gives the path', () => {
    expect(requestUrl({ origin: 'http://h:1/', path: '/a?b=1', method: 'GET' }, undefined)).toBe(
      'http://h:1/a?b=1',
    );
    expect(requestUrl({ origin: new URL('http://h:1'), path: '/a', method: 'GET' }, undefined)).toBe(
      'http://h:1/a',
    );
    expect(requestUrl({ path: '/a', method: 'GET' }, 'http://fallback')).toBe('http://fallback/a');
    expect(requestUrl({ path: 'http://proxy.target/x', method: 'GET' }, 'http://h')).toBe(
      'http://proxy.target/x',
    );
    expect(requestUrl({ path: '/a', method: 'GET' }, null)).toBe('/a');
  });
});

describe('requestBodyKind', () => {
  test('undici’s own FormData is replayable (undici encodes it anew on every dispatch)', () => {
    const form = new UndiciFormData();
    form.append('a', '1');
    expect(requestBodyKind(form)).toBe('replayable');
    expect(requestBodyKind(new FormData())).toBe('replayable');
  });
  test('the rest is the core’s classification', () => {
    expect(requestBodyKind('x')).toBe('replayable');
    expect(requestBodyKind(undefined)).toBe('none');
    expect(requestBodyKind((async function* () {})())).toBe('stream');
  });
});

test('declaredLength', () => {
  expect(declaredLength(() => '12')).toBe(12);
  expect(declaredLength(() => undefined)).toBeUndefined();
  expect(declaredLength(() => '1e3')).toBeUndefined();
});
