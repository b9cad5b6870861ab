/**
 * Between attempts, through every client: a fresh token after a 401, a signature made again for each
 * retry (its time changes), and a mirror host after two failures — the recipes of
 * `between-attempts/recipes.ts`, with `withRetry(fetch)`, ky, axios, undici's `request()` and its
 * `fetch()`. Each request's summary says what it cost.
 *
 * Run: node --conditions=@jitterbug/source examples/between-attempts.ts
 */
import { attachRetry } from '@jitterbug/axios';
import type { RetryOptions } from '@jitterbug/core';
import { getRetryInfo, withRetry } from '@jitterbug/fetch';
import { kyRetry } from '@jitterbug/ky';
import { retryInterceptor } from '@jitterbug/undici';
import axios from 'axios';
import ky from 'ky';
import { Agent, request, fetch as undiciFetch } from 'undici';
import {
  hmacSigner,
  mirrorAfter,
  refreshTokenOn401,
  signatureHeaders,
  signEveryRetry,
} from './between-attempts/recipes.ts';
import { type FlakyServer, SIGNING_SECRET, startFlakyServer } from './flaky-server.ts';
import { runStandalone } from './standalone.ts';

/** The clients, each sending one GET with jitterbug under `options`: the status and the attempts. */
type Send = (
  options: RetryOptions,
  url: string,
  headers?: Record<string, string>,
) => Promise<[number, number]>;

const attemptsOf = (target: unknown): number => getRetryInfo(target)?.attempts ?? 0;

export const CLIENTS: Readonly<Record<string, Send>> = {
  fetch: async (options, url, headers) => {
    const response = await withRetry(fetch, options)(url, headers ? { headers } : {});
    await response.arrayBuffer();
    return [response.status, attemptsOf(response)];
  },
  ky: async (options, url, headers) => {
    const response = await ky(url, {
      ...kyRetry(options),
      throwHttpErrors: false,
      ...(headers ? { headers } : {}),
    });
    await response.arrayBuffer();
    return [response.status, attemptsOf(response)];
  },
  axios: async (options, url, headers) => {
    const api = axios.create({ validateStatus: () => true });
    attachRetry(api, options);
    const response = await api.get(url, headers ? { headers } : {});
    return [response.status, attemptsOf(response)];
  },
  'undici request': async (options, url, headers) => {
    const agent = new Agent();
    try {
      const dispatcher = agent.compose(retryInterceptor(options));
      const response = await request(url, { dispatcher, ...(headers ? { headers } : {}) });
      await response.body.dump();
      return [response.statusCode, attemptsOf(response.headers)];
    } finally {
      await agent.close();
    }
  },
  'undici fetch': async (options, url, headers) => {
    const agent = new Agent();
    try {
      // undici's fetch builds its own headers object: the summary is read from the info headers.
      const dispatcher = agent.compose(retryInterceptor(options, { infoHeaders: true }));
      const response = await undiciFetch(url, { dispatcher, ...(headers ? { headers } : {}) });
      await response.arrayBuffer();
      return [response.status, Number(response.headers.get('x-jitterbug-attempts'))];
    } finally {
      await agent.close();
    }
  },
};

/** Short waits for the example: the recipes are the point, not the backoff. */
const quick: RetryOptions = { backoff: { baseMs: 20, capMs: 100 } };

export const main = async (server: FlakyServer, log: (line: string) => void): Promise<void> => {
  const mirror = await startFlakyServer(0, { mirror: true });
  const sign = await hmacSigner(SIGNING_SECRET);
  // A token source: in a real program, a call to your auth server.
  const newToken = async (): Promise<string> =>
    (await fetch(`${server.url}/token`, { method: 'POST' })).text();
  try {
    for (const [name, send] of Object.entries(CLIENTS)) {
      log(`  ${name}`);
      const slug = name.replace(' ', '-');
      const me = await send({ ...quick, ...refreshTokenOn401(newToken) }, `${server.url}/me/${slug}`, {
        authorization: 'Bearer expired',
      });
      log(`    GET /me with an expired token: ${me[0]} after ${me[1]} attempts (a new token on the retry)`);
      const url = `${server.url}/signed/${slug}`;
      const signed = await send(
        { ...quick, ...signEveryRetry(sign) },
        url,
        await signatureHeaders(sign, 'GET', url),
      );
      log(`    GET /signed, signed: ${signed[0]} after ${signed[1]} attempts (signed again for the retry)`);
      const report = await send(
        { ...quick, maxAttempts: 3, ...mirrorAfter(2, mirror.url) },
        `${server.url}/report/${slug}`,
      );
      log(
        `    GET /report with the primary down: ${report[0]} after ${report[1]} attempts (the third from the mirror)`,
      );
    }
  } finally {
    await mirror.close();
  }
};

if (import.meta.main) await runStandalone(main);
