import { Readable } from 'node:stream';
import { bodyKind, bufferStream } from '@jitterbug/core/adapter';
import { describe, expect, it } from 'vitest';

async function* generate(chunks: unknown[]): AsyncGenerator<unknown> {
  for (const chunk of chunks) yield chunk;
}

const concat = (parts: readonly Uint8Array[]): string => Buffer.concat(parts).toString('utf8');

const drain = async (rest: AsyncIterator<Uint8Array>): Promise<Uint8Array[]> => {
  const out: Uint8Array[] = [];
  for (;;) {
    const r = await rest.next();
    if (r.done) return out;
    out.push(r.value);
  }
};

describe('bodyKind', () => {
  it.each([
    ['undefined', undefined, 'none'],
    ['null', null, 'none'],
    ['string', 'text', 'replayable'],
    ['empty string', '', 'replayable'],
    ['number', 42, 'replayable'],
    ['boolean', false, 'replayable'],
    ['Buffer', Buffer.from('x'), 'replayable'],
    ['Uint8Array', new Uint8Array(3), 'replayable'],
    ['DataView', new DataView(new ArrayBuffer(2)), 'replayable'],
    ['ArrayBuffer', new ArrayBuffer(2), 'replayable'],
    ['SharedArrayBuffer', new SharedArrayBuffer(2), 'replayable'],
    ['URLSearchParams', new URLSearchParams('a=1'), 'replayable'],
    ['Blob', new Blob(['x']), 'replayable'],
    ['FormData', new FormData(), 'replayable'],
    ['plain object', { a: 1 }, 'replayable'],
    ['array', [1, 2], 'replayable'],
    ['ReadableStream', new ReadableStream(), 'stream'],
    ['Node Readable', Readable.from(['x']), 'stream'],
    ['object with pipe()', { pipe: () => {} }, 'stream'],
    ['async generator', generate(['x']), 'stream'],
    [
      'sync generator',
      (function* () {
        yield 'x';
      })(),
      'stream',
    ],
  ])('%s is %s', (_name, body, kind) => {
    expect(bodyKind(body)).toBe(kind);
  });
});

describe('bufferStream', () => {
  it('buffers a stream that fits, converting strings and views to bytes', async () => {
    const result = await bufferStream(
      generate([
        'ab',
        Buffer.from('cd'),
        new Uint8Array([101]),
        new DataView(new Uint8Array([102]).buffer),
        new Uint8Array([103]).buffer,
      ]),
      7,
    );
    expect(result.complete).toBe(true);
    expect(result.bytes).toBe(7);
    expect(concat(result.chunks)).toBe('abcdefg');
  });

  it('an empty stream is complete with no bytes', async () => {
    expect(await bufferStream(generate([]), 0)).toEqual({ complete: true, chunks: [], bytes: 0 });
  });

  it('over the limit: returns what was read and the rest, nothing lost and in order', async () => {
    const parts = ['one-', 'two-', 'three-', 'four-', 'five'];
    const result = await bufferStream(generate(parts), 6);
    expect(result.complete).toBe(false);
    if (result.complete) return;
    expect(concat(result.chunks)).toBe('one-two-'); // stopped at the chunk that crossed the limit
    expect(result.bytes).toBe(8);
    const rest = await drain(result.rest);
    expect(concat([...result.chunks, ...rest])).toBe(parts.join(''));
    expect(rest.every((c) => c instanceof Uint8Array)).toBe(true);
  });

  it('works with a Node Readable and a web ReadableStream', async () => {
    const node = await bufferStream(Readable.from([Buffer.from('hello '), Buffer.from('world')]), 100);
    expect(node.complete && concat(node.chunks)).toBe('hello world');
    const web = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('a'));
        controller.enqueue(new TextEncoder().encode('b'));
        controller.close();
      },
    });
    const result = await bufferStream(web, 1);
    expect(result.complete).toBe(false);
    if (!result.complete) expect(concat([...result.chunks, ...(await drain(result.rest))])).toBe('ab');
  });

  it('rest.return() closes the source', async () => {
    let closed = false;
    async function* source() {
      try {
        yield 'aaaa';
        yield 'bbbb';
        yield 'cccc';
      } finally {
        closed = true;
      }
    }
    const result = await bufferStream(source(), 2);
    if (result.complete) throw new Error('expected an incomplete buffer');
    await result.rest.return?.();
    expect(closed).toBe(true);
  });

  it('rejects chunks it cannot turn into bytes', async () => {
    await expect(bufferStream(generate([{ not: 'bytes' }]), 100)).rejects.toThrow(TypeError);
  });

  it('stops at once when the signal aborts: rejects with its reason and closes the source', async () => {
    let closed = false;
    const source = new Readable({ read() {} });
    source.on('close', () => {
      closed = true;
    });
    source.push('first');
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const pending = bufferStream(source, 1024, controller.signal);
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
  });

  it('with a signal already aborted reads nothing', async () => {
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(c) {
        pulled++;
        c.enqueue(new Uint8Array(1));
      },
    });
    const reason = new Error('too late');
    await expect(bufferStream(source, 10, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(pulled).toBeLessThanOrEqual(1);
  });
});
