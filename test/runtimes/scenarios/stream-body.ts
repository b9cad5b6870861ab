import type { CallRecord, ClientName, ErrorShape, RuntimeName } from '../protocol.ts';
import type { CheckContext, Scenario } from '../scenario.ts';
import { expectFinalStatus, onlyCall } from './final-status.ts';
import { describeShape } from './network-failure.ts';

const CHUNKS = ['part-1;', 'part-2;', 'part-3'];
/** What WebIDL makes of a `ReadableStream` where only a string or bytes fit. */
const STRINGIFIED = '[object ReadableStream]';

/**
 * How a runtime sends a `ReadableStream` request body, as each was seen doing here:
 * - `streamed`: sent as it is (Node, Bun, Deno, workerd);
 * - `refused`: Chromium streams an upload only over HTTP/2 or QUIC; to an `http://` origin its fetch
 *   fails at once (`TypeError: Failed to fetch`, net::ERR_ALPN_NEGOTIATION_FAILED) after the CORS
 *   preflight, and no request reaches the server;
 * - `stringified`: Firefox has no streamed uploads and XHR's `send()` takes no stream, so the body
 *   becomes the text "[object ReadableStream]", sent as any string is.
 */
type Upload = 'streamed' | 'refused' | 'stringified';

const uploadOf = (runtime: RuntimeName, client: ClientName): Upload => {
  if (client === 'axios-xhr' || runtime === 'firefox') return 'stringified';
  if (runtime === 'chromium') return 'refused';
  return 'streamed';
};

/** The errors down the cause chain. */
const chain = (error: ErrorShape | undefined): ErrorShape[] => {
  const all: ErrorShape[] = [];
  for (let e = error; e; e = e.cause) all.push(e);
  return all;
};

const checkRefused = (ctx: CheckContext, call: CallRecord): void => {
  const { expect, runtime, client } = ctx;
  expect(call.kind).toBe('error');
  // ky and axios wrap the browser's own error; it is there, as their cause.
  expect(chain(call.error).map((e) => [e.name, e.message])).toContainEqual(['TypeError', 'Failed to fetch']);
  expect(ctx.seen('/upload')).toEqual([]);
  expect(ctx.preflights('/upload').map((p) => p.method)).toEqual(['PUT']);
  ctx.report(
    `stream body: ${runtime}/${client} refuses it over HTTP/1.1 before sending (the server saw only the preflight); ` +
      `not retried (reason ${call.info?.reason}); the caller got ${describeShape(call.error)}`,
  );
};

export const streamBody: Scenario = {
  id: 'stream-body',
  title:
    'a ReadableStream request body is sent at most once and never again on a 503 (however the runtime sends it)',
  routes: () => ({ '/upload': [{ status: 503 }, { status: 200 }] }),
  async run(ctx) {
    const call = await ctx.connect().send({
      method: 'PUT',
      url: ctx.url('/upload'),
      body: { kind: 'stream', chunks: CHUNKS },
    });
    return { calls: [call] };
  },
  check(ctx) {
    const { expect, result, runtime, client } = ctx;
    const call = onlyCall(ctx);
    // Whatever the runtime does with the stream, jitterbug sends the call once: the caller's stream
    // cannot be read again (a 'refused' call fails like a lost connection, and is not retried either).
    expect(call.info).toMatchObject({ attempts: 1, reason: 'body-not-replayable' });
    expect(result.waits).toEqual([]);
    const upload = uploadOf(runtime, client);
    if (upload === 'refused') {
      checkRefused(ctx, call);
      return;
    }
    expectFinalStatus(ctx, call, 503);
    const sent = upload === 'streamed' ? CHUNKS.join('') : STRINGIFIED;
    expect(ctx.seen('/upload').map((r) => [r.method, r.body.toString()])).toEqual([['PUT', sent]]);
    if (upload === 'stringified') {
      ctx.report(
        `stream body: ${runtime}/${client} sends it as the text "${STRINGIFIED}" (no streamed uploads${client === 'axios-xhr' ? ' through XHR' : ''}); sent once, not retried`,
      );
    }
  },
};
