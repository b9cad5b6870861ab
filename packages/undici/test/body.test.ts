/** Request body preparation: what is read ahead, and what is sent as it is. */
import { Readable } from 'node:stream';
import { createBodyBuffering, createRetryPolicy, type RetryOptions } from '@jitterbug/core';
import { describe, expect, test } from 'vitest';
import { type BodyReader, prepareBody } from '../src/body.ts';
import { requestBodyKind, requestHeaderGetter } from '../src/request-info.ts';
import type { DispatchOpts } from '../src/types.ts';

const fetchLikeBody = (...chunks: string[]) =>
  (async function* () {
    for (const c of chunks) yield new TextEncoder().encode(c);
  })();

/** The headers fetch hands the dispatcher for a body it made from a string: its length after its defaults. */
const fetchHeaders = (length: string) => ({
  'content-type': 'text/plain;charset=UTF-8',
  accept: '*/*',
  'accept-language': '*',
  'content-length': length,
  'sec-fetch-mode': 'cors',
});

/** The headers fetch hands the dispatcher for the caller's stream with the caller's `content-length`. */
const callerLengthViaFetch = (length: string) => ({
  'Content-Length': length,
  accept: '*/*',
  'accept-language': '*',
  'sec-fetch-mode': 'cors',
});

const read = (prepared: DispatchOpts | BodyReader, signal = new AbortController().signal) =>
  (prepared as BodyReader)(signal);

const prepare = (opts: DispatchOpts, options: RetryOptions = {}, knownLength = 1024) => {
  const headers = requestHeaderGetter(opts.headers);
  const run = createRetryPolicy(options).begin({
    method: opts.method,
    url: `http://h${opts.path}`,
    headers,
    body: requestBodyKind(opts.body),
  });
  return { run, prepared: prepareBody(opts, run, headers, knownLength) };
};

const drain = async (body: unknown): Promise<string> => {
  let text = '';
  for await (const chunk of body as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString();
  return text;
};

describe('left alone, synchronously (the same opts object)', () => {
  test.each([
    ['no body', { method: 'GET', path: '/' }],
    ['a string', { method: 'PUT', path: '/', body: 'x' }],
    ['a Node stream without bodyBuffering', { method: 'PUT', path: '/', body: Readable.from(['a']) }],
    ['a fetch body with no declared length', { method: 'PUT', path: '/', body: fetchLikeBody('a') }],
    [
      'a fetch body longer than knownLengthBodyMaxBytes',
      { method: 'PUT', path: '/', body: fetchLikeBody('a'), headers: fetchHeaders('5000') },
    ],
    [
      'the caller’s stream given to fetch with the caller’s own content-length',
      { method: 'PUT', path: '/', body: fetchLikeBody('a'), headers: callerLengthViaFetch('1') },
    ],
    [
      'the caller’s async iterable given to request() with a content-length',
      { method: 'PUT', path: '/', body: fetchLikeBody('a'), headers: { 'content-length': '1' } },
    ],
    [
      'the caller’s Node stream given to request() with a content-length',
      { method: 'PUT', path: '/', body: Readable.from(['a']), headers: { 'content-length': '1' } },
    ],
  ] as [string, DispatchOpts][])('%s', (_name, opts) => {
    expect(prepare(opts).prepared).toBe(opts);
  });

  test('a fetch body of a POST that can never be sent again (no key, transparentRetries: 0)', () => {
    const opts = { method: 'POST', path: '/', body: fetchLikeBody('a'), headers: fetchHeaders('1') };
    expect(prepare(opts, { transparentRetries: 0 }).prepared).toBe(opts);
  });
});

describe('read ahead', () => {
  test('a fetch body of declared length becomes bytes, and the run sees a replayable body', async () => {
    const opts: DispatchOpts = {
      method: 'PUT',
      path: '/',
      body: fetchLikeBody('he', 'llo'),
      headers: fetchHeaders('5'),
    };
    const { run, prepared } = prepare(opts);
    const ready = await read(prepared);
    expect(Buffer.isBuffer(ready.body) && ready.body.toString()).toBe('hello');
    expect(ready.headers).toBe(opts.headers);
    expect(run.body).toBe('replayable');
  });

  test('a fetch body of a POST without a key: a transparent retry (a refused stream) may send it again', async () => {
    const opts = { method: 'POST', path: '/', body: fetchLikeBody('a'), headers: fetchHeaders('1') };
    const { run, prepared } = prepare(opts);
    expect(((await read(prepared)).body as Buffer).toString()).toBe('a');
    expect(run.body).toBe('replayable');
  });

  test('a Node stream within the bodyBuffering limit becomes bytes', async () => {
    const { run, prepared } = prepare(
      { method: 'PUT', path: '/', body: Readable.from([Buffer.from('ab'), Buffer.from('c')]) },
      { bodyBuffering: createBodyBuffering({ maxBytes: 3 }) },
    );
    expect(((await read(prepared)).body as Buffer).toString()).toBe('abc');
    expect(run.body).toBe('replayable');
  });

  test('past the limit: the prefix then the rest, once, in order; the run still sees a stream', async () => {
    const { run, prepared } = prepare(
      { method: 'PUT', path: '/', body: Readable.from(['ab', 'cd', 'ef']) },
      { bodyBuffering: createBodyBuffering({ maxBytes: 3 }) },
    );
    expect(await drain((await read(prepared)).body)).toBe('abcdef');
    expect(run.body).toBe('stream');
  });

  test('a stream that fails while being read rejects with its error', async () => {
    const boom = new Error('disk');
    const failing = (async function* () {
      yield 'a';
      throw boom;
    })();
    const { prepared } = prepare(
      { method: 'PUT', path: '/', body: failing },
      { bodyBuffering: createBodyBuffering({ maxBytes: 10 }) },
    );
    await expect(read(prepared)).rejects.toBe(boom);
  });

  test.each([
    ['a Node stream is destroyed', (stalled: Readable) => stalled],
    ['a web stream is cancelled', (stalled: Readable) => Readable.toWeb(stalled)],
  ])('an abort while a chunk is awaited rejects at once with its reason; %s', async (_name, wrap) => {
    let pulls = 0;
    const stalled = new Readable({
      read() {
        // The first chunk, then nothing: the source never ends by itself.
        if (pulls++ === 0) this.push('a');
      },
    });
    const { prepared } = prepare(
      { method: 'PUT', path: '/', body: wrap(stalled) },
      { bodyBuffering: createBodyBuffering({ maxBytes: 10 }) },
    );
    const controller = new AbortController();
    const reading = read(prepared, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('gave up');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    await new Promise((resolve) => setImmediate(resolve));
    expect(stalled.destroyed).toBe(true);
  });
});
