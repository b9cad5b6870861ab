/**
 * Legacy handlers (`onConnect`, `onHeaders`, …), as Node's global fetch hands them over, driven
 * through undici's current API by delegation.
 */
import { describe, expect, test } from 'vitest';
import { LegacyHandlerAdapter, toNewHandler, toRawHeaders } from '../src/legacy.ts';
import type { Controller, RawHeaders } from '../src/types.ts';

class Ctl implements Controller {
  aborted = false;
  paused = false;
  reason: unknown = null;
  rawHeaders: Controller['rawHeaders'] = null;
  rawTrailers: Controller['rawTrailers'] = null;
  calls: unknown[] = [];
  abort(reason: Error): void {
    this.calls.push(['abort', reason]);
  }
  pause(): void {
    this.calls.push('pause');
  }
  resume(): void {
    this.calls.push('resume');
  }
}

/** A class-based legacy handler: its methods live on the prototype, as fetch's and undici 6's do. */
class LegacyCaller {
  log: unknown[] = [];
  abort: ((reason?: Error) => void) | undefined;
  resume: (() => void) | undefined;
  wantMore = true;
  onConnect(abort: (reason?: Error) => void, context: unknown): void {
    this.abort = abort;
    this.log.push(['connect', context]);
  }
  onResponseStarted(): void {
    this.log.push('started');
  }
  onHeaders(status: number, raw: RawHeaders, resume: () => void, text?: string): boolean {
    this.resume = resume;
    this.log.push(['headers', status, raw.map(String), text]);
    return this.wantMore;
  }
  onData(chunk: Buffer): boolean {
    this.log.push(['data', chunk.toString()]);
    return this.wantMore;
  }
  onComplete(trailers: RawHeaders | null): void {
    this.log.push(['complete', trailers?.map(String)]);
  }
  onError(error: Error): void {
    this.log.push(['error', error.message]);
  }
}

describe('LegacyHandlerAdapter', () => {
  test('delegates every call to the handler instance (prototype methods kept, this bound)', () => {
    const legacy = new LegacyCaller();
    const handler = toNewHandler(legacy);
    expect(handler).toBeInstanceOf(LegacyHandlerAdapter);
    const ctl = new Ctl();
    ctl.rawHeaders = [
      Buffer.from('Content-Type'),
      Buffer.from('text/plain'),
      Buffer.from('Set-Cookie'),
      Buffer.from('a=1'),
    ];
    handler.onRequestStart?.(ctl, { ctx: 1 });
    handler.onResponseStarted?.();
    handler.onResponseStart?.(ctl, 200, { 'content-type': 'text/plain', 'set-cookie': 'a=1' }, 'OK');
    handler.onResponseData?.(ctl, Buffer.from('hi'));
    handler.onResponseEnd?.(ctl, { 'x-t': '1' });
    expect(legacy.log).toEqual([
      ['connect', { ctx: 1 }],
      'started',
      ['headers', 200, ['Content-Type', 'text/plain', 'Set-Cookie', 'a=1'], 'OK'],
      ['data', 'hi'],
      ['complete', ['x-t', '1']],
    ]);
    expect(ctl.calls).toEqual([]);
  });

  test('abort(), resume() and a false return map onto the controller', () => {
    const legacy = new LegacyCaller();
    legacy.wantMore = false;
    const handler = toNewHandler(legacy);
    const ctl = new Ctl();
    handler.onRequestStart?.(ctl, null);
    handler.onResponseStart?.(ctl, 200, {});
    handler.onResponseData?.(ctl, Buffer.from('x'));
    legacy.resume?.();
    const reason = new Error('why');
    legacy.abort?.(reason);
    legacy.abort?.();
    expect(ctl.calls.slice(0, 4)).toEqual(['pause', 'pause', 'resume', ['abort', reason]]);
    const [, lastReason] = ctl.calls[4] as [string, Error];
    expect(lastReason.name).toBe('AbortError');
  });

  test('a false return on an interim 1xx does not pause', () => {
    const legacy = new LegacyCaller();
    legacy.wantMore = false;
    const ctl = new Ctl();
    toNewHandler(legacy).onResponseStart?.(ctl, 100, {});
    expect(ctl.calls).toEqual([]);
  });

  test('errors go to onError; without one they are thrown, as undici does', () => {
    const legacy = new LegacyCaller();
    toNewHandler(legacy).onResponseError?.(null, new Error('gone'));
    expect(legacy.log).toEqual([['error', 'gone']]);
    const bare = toNewHandler({ onConnect() {} });
    expect(() => bare.onResponseError?.(null, new Error('thrown'))).toThrow('thrown');
  });

  test('a new-API handler is used as is', () => {
    const handler = { onRequestStart() {}, onResponseError() {} };
    expect(toNewHandler(handler)).toBe(handler);
  });
});

describe('toRawHeaders', () => {
  test('keeps the parser’s raw array, else builds one from the record (multi-values as arrays)', () => {
    const raw = [Buffer.from('a'), Buffer.from('1')];
    expect(toRawHeaders(raw, {})).toBe(raw);
    const built = toRawHeaders(null, { a: '1', 'set-cookie': ['x=1', 'y=2'], gone: undefined });
    expect(built.map((v) => (Array.isArray(v) ? v.map(String) : String(v)))).toEqual([
      'a',
      '1',
      'set-cookie',
      ['x=1', 'y=2'],
    ]);
  });
});
