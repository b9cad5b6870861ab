/**
 * Three things users of retry libraries most often ask to do between attempts, with `beforeRetry`:
 * copy the one you need. Each is runtime-neutral (browsers, Node, Bun, Deno, Workers: the signer uses
 * WebCrypto) and works with every jitterbug client, since `beforeRetry` is a policy option; each
 * brings `requestEdits: createRequestEdits()`, which applies what `beforeRetry` sets:
 *
 * ```ts
 * const fetchWithRetry = withRetry(fetch, { ...refreshTokenOn401(getToken) });
 * ```
 */
import { createRequestEdits, type RetryOptions } from '@jitterbug/core';

/**
 * A fresh bearer token after a 401: the 401 is made retryable (it is not by default: a 401 for a bad
 * password would repeat), and the retry carries the token `refresh` gives.
 */
export const refreshTokenOn401 = (
  refresh: () => Promise<string>,
): Pick<RetryOptions, 'shouldRetry' | 'beforeRetry' | 'requestEdits'> => ({
  shouldRetry: ({ status }) => (status === 401 ? true : undefined),
  requestEdits: createRequestEdits(),
  beforeRetry: async (next) => {
    if (next.status === 401) next.headers.set('authorization', `Bearer ${await refresh()}`);
  },
});

/** Signs a text with HMAC-SHA-256 under `secret` (hex): a stand-in for a real request signer. */
export const hmacSigner = async (secret: string): Promise<(text: string) => Promise<string>> => {
  const key = await crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  return async (text) => {
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(text)));
    return Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('');
  };
};

/**
 * The headers of a signature over the method, the path and the time, as AWS SigV4 signs them (in
 * miniature): the signature is good for that moment only, so each attempt needs its own.
 */
export const signatureHeaders = async (
  sign: (text: string) => Promise<string>,
  method: string,
  url: string,
  now = new Date(),
): Promise<Record<string, string>> => {
  const date = now.toISOString();
  const signature = await sign(`${method}\n${new URL(url).pathname}\n${date}`);
  return { 'x-amz-date': date, authorization: `HMAC-SHA256 Signature=${signature}` };
};

/** Signs every retry again (sign the first attempt yourself, with `signatureHeaders`). */
export const signEveryRetry = (
  sign: (text: string) => Promise<string>,
): Pick<RetryOptions, 'beforeRetry' | 'requestEdits'> => ({
  requestEdits: createRequestEdits(),
  beforeRetry: async (next) => {
    const headers = await signatureHeaders(sign, next.method, next.url);
    for (const [name, value] of Object.entries(headers)) next.headers.set(name, value);
  },
});

/** After `failures` failed attempts, sends the rest to `mirror`'s origin (same path and query). */
export const mirrorAfter = (
  failures: number,
  mirror: string,
): Pick<RetryOptions, 'beforeRetry' | 'requestEdits'> => ({
  requestEdits: createRequestEdits(),
  beforeRetry: (next) => {
    if (next.attempt <= failures) return;
    const url = new URL(next.url);
    const { protocol, host } = new URL(mirror);
    url.protocol = protocol;
    url.host = host;
    next.url = url.href;
  },
});
