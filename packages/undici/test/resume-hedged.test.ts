/**
 * A request for the rest of a broken body (`resume: createResume()`) sent as hedged copies
 * (`hedge: createHedging()` on the same policy): every copy's answer is checked as a single request
 * for the rest's is (`checkResumed`), so a copy that answers with another representation is refused
 * exactly as that request would be, and the caller reads only the original's bytes. A real server on
 * 127.0.0.1 breaks the body mid-stream and holds the first request for the rest unanswered, so that
 * a hedged copy goes out and its answer is the one the race hears; it answers by what it is asked
 * (a `Range` or not), not by the order requests come in, so a first request hedged under load
 * changes nothing the test asserts.
 */
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createHedging,
  createResume,
  createRetryPolicy,
  getRetryInfo,
  type RetryPolicyOptions,
} from '@jitterbug/core';
import * as undici from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { content } from '../../fetch/test/support/range-server.ts';
import { retryInterceptor } from '../src/index.ts';
import { readBody } from './helpers.ts';

const FILE = content(300_000);
/** Another representation of the same resource, whose bytes never line up with FILE's. */
const OTHER = content(300_000, 1);
/** Where the first answer's connection breaks. */
const BREAK = 100_000;

/** How the server answers a request for the rest: with another representation, one way or another. */
type Refused = '206 with another ETag' | '200 with the whole of another body';

let server: Server;
let url: string;
/** How requests for the rest are answered, and whether the first of them is held unanswered. */
let refused: Refused = '206 with another ETag';
let holdFirstRest = false;
/** The requests for the rest, as the server saw them. */
let rests: { range: string | undefined; ifRange: string | undefined }[] = [];
const held: ServerResponse[] = [];

const answerRest = (res: ServerResponse): void => {
  if (refused === '206 with another ETag') {
    res.writeHead(206, {
      etag: '"v2"',
      'content-range': `bytes ${BREAK}-${OTHER.length - 1}/${OTHER.length}`,
      'content-length': String(OTHER.length - BREAK),
    });
    res.end(OTHER.subarray(BREAK));
  } else {
    res.writeHead(200, { etag: '"v2"', 'content-length': String(OTHER.length) });
    res.end(OTHER);
  }
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const range = req.headers.range;
    if (range === undefined) {
      // The whole body, broken once BREAK bytes have left.
      res.writeHead(200, { etag: '"v1"', 'accept-ranges': 'bytes', 'content-length': String(FILE.length) });
      res.write(FILE.subarray(0, BREAK), () => setTimeout(() => res.socket?.destroy(), 5));
      return;
    }
    rests.push({ range, ifRange: req.headers['if-range'] as string | undefined });
    // Held, the first request for the rest leaves the race to the copy the hedge delay sends.
    if (holdFirstRest && rests.length === 1) held.push(res);
    else answerRest(res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const agents: undici.Agent[] = [];
afterEach(async () => {
  for (const agent of agents.splice(0)) await agent.close();
  for (const res of held.splice(0)) res.destroy();
  rests = [];
});

/**
 * GETs the file through a resuming policy (with `extra`); what the caller read, how it ended, and the
 * summary its error carries. No `onFinish`: a first answer is then handed over the quickest way,
 * which a request for the rest must not take.
 */
const download = async (extra: RetryPolicyOptions) => {
  const agent = new undici.Agent();
  agents.push(agent);
  const policy = createRetryPolicy({
    random: () => 0.5,
    sleep: async () => {},
    resume: createResume(),
    ...extra,
  });
  const res = await undici.request(`${url}/file`, { dispatcher: agent.compose(retryInterceptor(policy)) });
  const { bytes, error } = await readBody(res.body);
  return { status: res.statusCode, bytes, error, info: getRetryInfo(error) };
};

describe.each<Refused>(['206 with another ETag', '200 with the whole of another body'])(
  'a request for the rest answered with a %s',
  (answer) => {
    it('is refused the same whether its answer came to a hedged copy or to the only request', async () => {
      refused = answer;
      holdFirstRest = false;
      const single = await download({});
      expect(rests).toHaveLength(1);

      rests = [];
      holdFirstRest = true;
      const hedged = await download({ hedge: createHedging({ delayMs: 20 }) });
      // The first request for the rest never answered: the copy the hedge delay sent did.
      expect(rests).toEqual([
        { range: `bytes=${BREAK}-`, ifRange: '"v1"' },
        { range: `bytes=${BREAK}-`, ifRange: '"v1"' },
      ]);
      expect(held).toHaveLength(1);

      for (const [label, got] of [
        ['single', single],
        ['hedged', hedged],
      ] as const) {
        expect(got.status, label).toBe(200);
        // Only the original's bytes, up to where it broke: nothing of the other representation.
        expect(got.bytes.length, label).toBe(BREAK);
        expect(got.bytes.equals(FILE.subarray(0, BREAK)), label).toBe(true);
        expect(got.error, label).toMatchObject({ name: 'ResumeError', code: 'ERR_JITTERBUG_RESUME' });
        expect(got.info, label).toMatchObject({ outcome: 'failure', reason: 'error-not-retryable' });
      }
      expect((hedged.error as Error).message).toBe((single.error as Error).message);
      expect(hedged.info?.hedge).toMatchObject({ winner: 2 });
    });
  },
);
