/**
 * The caller gets what axios gives without jitterbug. With `discardedBodyCap` the first attempt
 * of a GET is read by jitterbug in stream mode (it could be retried); these tests make that attempt
 * the final one and compare the result, field by field, with the same request on a plain axios
 * instance. By default axios reads every body itself: the same comparisons hold there too.
 */
import { Agent } from 'node:http';
import type { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import axios, { type AxiosHeaders, type AxiosRequestConfig, type AxiosResponse, isAxiosError } from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../../test/support/scripted-server.ts';
import { type AxiosAdapterOptions, attachRetry, createDiscardedBodyCap } from '../src/index.ts';

let server: ScriptedServer;
const agent = new Agent({ keepAlive: true });
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  agent.destroy();
  await server.close();
});

const readAll = async (stream: Readable): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('latin1');
};

const dataShape = async (data: unknown): Promise<unknown> => {
  if (data && typeof (data as Readable).pipe === 'function')
    return { stream: await readAll(data as Readable) };
  if (Buffer.isBuffer(data)) return { buffer: data.toString('hex') };
  // What the fetch adapter gives: web streams, ArrayBuffers and Blobs, compared by content.
  if (data instanceof ReadableStream) return { webStream: await new Response(data).text() };
  if (data instanceof ArrayBuffer) return { arrayBuffer: Buffer.from(data).toString('hex') };
  if (data instanceof Blob) return { blob: await data.text(), type: data.type };
  return data;
};

const responseShape = async (response: AxiosResponse) => ({
  status: response.status,
  statusText: response.statusText,
  headers: { ...(response.headers as AxiosHeaders).toJSON(), date: 'x', 'keep-alive': 'x', connection: 'x' },
  data: await dataShape(response.data),
  config: {
    responseType: response.config.responseType,
    responseEncoding: response.config.responseEncoding,
    maxContentLength: response.config.maxContentLength,
    adapter: response.config.adapter,
    hasValidateStatus: typeof response.config.validateStatus,
  },
  hasRequest: typeof response.request,
});

type Shape = { ok: Awaited<ReturnType<typeof responseShape>> } | { error: Record<string, unknown> };

const outcome = async (promise: Promise<AxiosResponse>): Promise<Shape> => {
  try {
    return { ok: await responseShape(await promise) };
  } catch (error) {
    if (!isAxiosError(error)) return { error: { other: String(error) } };
    return {
      error: {
        name: error.name,
        message: error.message,
        code: error.code,
        status: error.status,
        response: error.response ? await responseShape(error.response) : undefined,
        sameConfig: error.response ? error.response.config === error.config : undefined,
        responseType: error.config?.responseType,
      },
    };
  }
};

const compare = async (
  path: string,
  step: Parameters<ScriptedServer['route']>[1],
  config: AxiosRequestConfig,
  attach: AxiosAdapterOptions | undefined,
) => {
  path = `/${attach ? 'capped' : 'default'}/${String(config.adapter ?? 'http')}${path}`;
  server.route(path, step);
  const plain = axios.create({ baseURL: server.url, httpAgent: agent });
  const retried = axios.create({ baseURL: server.url, httpAgent: agent });
  attachRetry(retried, { sleep: async () => {}, random: () => 0 }, attach);
  const expected = await outcome(plain.get(path, config));
  const actual = await outcome(retried.get(path, config));
  expect(actual).toEqual(expected);
  return actual;
};

const MODES = [
  ['default', undefined],
  ['discardedBodyCap', { discardedBodyCap: createDiscardedBodyCap() }],
] as const;

describe.each(
  MODES.flatMap(([mode, attach]) => (['http', 'fetch'] as const).map((a) => [a, mode, attach] as const)),
)('%s adapter (%s): final response on an attempt that could have been retried', (adapter, _mode, attach) => {
  const text = '\ufeff{"hello":"wörld"}';
  it.each<[string, AxiosRequestConfig]>([
    ['default (json)', {}],
    ['json', { responseType: 'json' }],
    ['text', { responseType: 'text' }],
    ['arraybuffer', { responseType: 'arraybuffer' }],
    ['blob', { responseType: 'blob' }],
    ['document', { responseType: 'document' }],
    ['stream', { responseType: 'stream' }],
    ['latin1', { responseType: 'text', responseEncoding: 'latin1' }],
    ['forced JSON off', { transitional: { forcedJSONParsing: false } }],
  ])('200 with %s', async (_, config) => {
    const result = await compare(
      `/ok-${_}`,
      [{ status: 200, body: text, headers: { 'x-a': '1' } }],
      {
        ...config,
        adapter,
      },
      attach,
    );
    expect('ok' in result).toBe(true);
  });

  it.each<[string, AxiosRequestConfig]>([
    ['default', {}],
    ['arraybuffer', { responseType: 'arraybuffer' }],
    ['stream', { responseType: 'stream' }],
  ])('404 with %s', async (_, config) => {
    const result = await compare(
      `/nf-${_}`,
      [{ status: 404, body: '{"e":1}' }],
      { ...config, adapter },
      attach,
    );
    expect('error' in result).toBe(true);
  });

  it('validateStatus accepting 404', async () => {
    await compare(
      '/vs',
      [{ status: 404, body: 'nope' }],
      { validateStatus: (s) => s < 500, adapter },
      attach,
    );
  });

  it('a gzip-encoded body is decompressed', async () => {
    await compare(
      '/gz',
      [{ status: 200, body: gzipSync('zipped text'), headers: { 'content-encoding': 'gzip' } }],
      { adapter },
      attach,
    );
  });

  it('maxContentLength exceeded', async () => {
    const result = await compare(
      '/mcl',
      [{ status: 200, body: 'x'.repeat(5000) }],
      { maxContentLength: 100, adapter },
      attach,
    );
    expect(result).toMatchObject({ error: { code: 'ERR_BAD_RESPONSE' } });
  });

  it('maxContentLength exceeded past discardBodyMaxBytes', async () => {
    const result = await compare(
      '/mcl2',
      [{ status: 200, bodyBytes: 300_000 }],
      { maxContentLength: 200_000, adapter },
      attach,
    );
    expect(result).toMatchObject({ error: { message: 'maxContentLength size of 200000 exceeded' } });
  });

  it('an empty 204 and a HEAD', async () => {
    await compare('/empty', [{ status: 204 }], { adapter }, attach);
    server.route('/head', [{ status: 200, body: 'ignored' }]);
    const plain = axios.create({ baseURL: server.url, httpAgent: agent, adapter });
    const retried = axios.create({ baseURL: server.url, httpAgent: agent, adapter });
    attachRetry(retried, {}, attach);
    expect(await outcome(retried.head('/head'))).toEqual(await outcome(plain.head('/head')));
  });

  it('a body bigger than discardBodyMaxBytes', async () => {
    const result = await compare(
      '/big',
      [{ status: 200, bodyBytes: 500_000 }],
      { responseType: 'text', adapter },
      attach,
    );
    expect(result).toMatchObject({ ok: { status: 200 } });
  });
});
