/**
 * axios with `attachRetry` as the axios README sets it up for a browser: on its `xhr` or `fetch`
 * adapter, with `'User-Agent': false` on the instance (axios' fetch adapter otherwise sends
 * `User-Agent: axios/<version>`, which Firefox sends on, so every cross-origin call would be
 * preflighted; the APIs here do not allow that header). What a call ended with is reported as the
 * runtime matrix's clients report it.
 */
import { attachRetry, createRetryPolicy, getRetryInfo } from '@jitterbug/axios';
import axios, { type AxiosRequestConfig, isAxiosError } from 'axios';
import type { CallResult, ClientFactory, RuntimeRequest } from '../../runtimes/in-runtime/client.ts';

const CONTENT_TYPES = { text: 'text/plain;charset=UTF-8', json: 'application/json' } as const;

const axiosClient =
  (adapter: 'xhr' | 'fetch'): ClientFactory =>
  ({ options }) => {
    const api = axios.create({
      adapter,
      headers: { 'User-Agent': false },
      // The body as the server sent it, untransformed.
      responseType: 'text',
      transformResponse: [],
    } as AxiosRequestConfig);
    attachRetry(api, createRetryPolicy(options));
    return {
      async send(request: RuntimeRequest): Promise<CallResult> {
        const { body } = request;
        if (body?.kind === 'stream') throw new TypeError('the nginx scenarios send no stream bodies');
        try {
          const response = await api.request<string>({
            method: request.method,
            url: request.url,
            ...(body ? { data: body.value } : {}),
            headers: { ...(body ? { 'content-type': CONTENT_TYPES[body.kind] } : {}), ...request.headers },
            ...(request.signal ? { signal: request.signal } : {}),
          });
          return {
            kind: 'response',
            status: response.status,
            body: response.data,
            info: getRetryInfo(response),
          };
        } catch (error) {
          const info = getRetryInfo(error);
          if (isAxiosError(error) && error.response)
            return { kind: 'http-error', status: error.response.status, body: undefined, error, info };
          return { kind: 'error', error, info };
        }
      },
      isAbort: () => false,
    };
  };

export const axiosXhrClient: ClientFactory = axiosClient('xhr');
export const axiosFetchClient: ClientFactory = axiosClient('fetch');
