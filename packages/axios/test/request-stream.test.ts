/**
 * How each `#platform` part sends a stream request body that `bodyBuffering` read ahead: the body
 * as bytes when it fits (sent again as they are), else a stream of what was read and then the
 * unread rest, sent once — a Node `Readable` in Node, a web `ReadableStream` elsewhere (axios'
 * fetch adapter sends it). The clients' own sends are `retry.test.ts`'s and the conformance suite's.
 */
import { Readable } from 'node:stream';
import { createBodyBuffering } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';
import { bufferRequestStream as inNode } from '../src/node/request-stream.ts';
import { bufferRequestStream as onTheWeb } from '../src/platform/web.ts';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

const text = (bytes: unknown): string => new TextDecoder().decode(bytes as Uint8Array);

describe.each([
  ['Node', inNode],
  ['the web', onTheWeb],
] as const)('a stream body read ahead (%s)', (where, bufferRequestStream) => {
  it('that fits: its bytes, one Uint8Array', async () => {
    const body = await bufferRequestStream(chunks('abc', 'def'), createBodyBuffering({ maxBytes: 6 }));
    expect(body).toBeInstanceOf(Uint8Array);
    expect(text(body)).toBe('abcdef');
  });

  it('past the limit: one stream of what was read and the rest, in order', async () => {
    const body = await bufferRequestStream(
      chunks('abcd', 'efgh', 'ij'),
      createBodyBuffering({ maxBytes: 6 }),
    );
    if (where === 'Node') {
      expect(body).toBeInstanceOf(Readable);
      const read: Buffer[] = [];
      for await (const chunk of body as Readable) read.push(chunk as Buffer);
      expect(Buffer.concat(read).toString()).toBe('abcdefghij');
    } else {
      expect(body).toBeInstanceOf(ReadableStream);
      expect(await new Response(body as ReadableStream).text()).toBe('abcdefghij');
    }
  });

  it("the caller's abort: rejected at once with its reason", async () => {
    const reason = new Error('stop');
    await expect(
      bufferRequestStream(chunks('abc'), createBodyBuffering(), AbortSignal.abort(reason)),
    ).rejects.toBe(reason);
  });
});
