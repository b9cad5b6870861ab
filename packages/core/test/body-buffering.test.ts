/**
 * Stream-body buffering comes from `createBodyBuffering()`: off by default, a plain value where the
 * factory's object goes is refused with what to write, the factory checks its limit, and its readers
 * are the core's `bufferStream` within that limit. What each client sends with it (the same bytes on
 * a retry; a longer stream once, whole) is the conformance suite's and each adapter's tests'.
 */
import { createBodyBuffering, createRetryPolicy } from '@jitterbug/core';
import { describe, expect, it } from 'vitest';

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

describe('createBodyBuffering', () => {
  it('is off by default, and a policy keeps the one it was given', () => {
    expect(createRetryPolicy().options.feature.bodyBuffering).toBeUndefined();
    expect(createRetryPolicy().buffersStreams).toBe(false);
    const buffering = createBodyBuffering();
    const policy = createRetryPolicy({ bodyBuffering: buffering });
    expect(policy.options.feature.bodyBuffering).toBe(buffering);
    expect(policy.buffersStreams).toBe(true);
    expect(createRetryPolicy({ bodyBuffering: false }).options.feature.bodyBuffering).toBeUndefined();
  });

  it('reads up to 1 MiB by default, or the maxBytes given', () => {
    expect(createBodyBuffering().maxBytes).toBe(1_048_576);
    expect(createBodyBuffering({ maxBytes: 16 }).maxBytes).toBe(16);
  });

  it.each([
    ['a limit', 1024, 'createBodyBuffering({ maxBytes: 1024 })'],
    ['true', true, 'createBodyBuffering()'],
    ['its options as a plain object', { maxBytes: 64 }, 'createBodyBuffering({ maxBytes: 64 })'],
  ])('refuses %s where its object goes, telling what to write', (_, value, written) => {
    expect(() => createRetryPolicy({ bodyBuffering: value as never })).toThrow(
      `option "bodyBuffering" must be false or what createBodyBuffering() returns`,
    );
    expect(() => createRetryPolicy({ bodyBuffering: value as never })).toThrow(`bodyBuffering: ${written}`);
  });

  it("tells the earlier option's name what to write instead", () => {
    expect(() => createRetryPolicy({ bufferStreamMaxBytes: 4096 } as never)).toThrow(
      /unknown option "bufferStreamMaxBytes".*bodyBuffering: createBodyBuffering\(\{ maxBytes: 4096 \}\)/,
    );
  });

  it.each([
    [{ maxBytes: -1 }, /"createBodyBuffering\(options\)\.maxBytes" must be a finite number >= 0/],
    [{ maxBytes: Number.NaN }, /"createBodyBuffering\(options\)\.maxBytes"/],
    [{ limit: 10 }, /unknown option "createBodyBuffering\(options\)\.limit"/],
    [null, /"createBodyBuffering\(options\)" must be an object/],
  ])('checks its options: %o', (options, message) => {
    expect(() => createBodyBuffering(options as never)).toThrow(message);
  });

  it('reads a stream that fits into its chunks, and one past the limit in part with the rest unread', async () => {
    const buffering = createBodyBuffering({ maxBytes: 6 });
    expect(await buffering.read(chunks('abc', 'def'))).toMatchObject({ complete: true, bytes: 6 });
    const part = await buffering.read(chunks('abcd', 'efgh', 'ij'));
    expect(part).toMatchObject({ complete: false, bytes: 8 });
    const rest = part.complete ? undefined : await part.rest.next();
    expect(new TextDecoder().decode(rest?.value)).toBe('ij');
  });

  it('reads a web stream that fits into one Uint8Array, and a longer one into a stream of it all', async () => {
    const buffering = createBodyBuffering({ maxBytes: 6 });
    const whole = await buffering.readWeb(chunks('abc', 'def'));
    expect(whole).toBeInstanceOf(Uint8Array);
    expect(new TextDecoder().decode(whole as Uint8Array)).toBe('abcdef');
    const longer = await buffering.readWeb(chunks('abcd', 'efgh', 'ij'));
    expect(longer).toBeInstanceOf(ReadableStream);
    expect(await new Response(longer).text()).toBe('abcdefghij');
  });
});
