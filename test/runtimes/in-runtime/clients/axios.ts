/**
 * axios with `attachRetry`, on the adapter a browser has: `xhr` (its default there) or `fetch`.
 * axios reads whole bodies before resolving and rejects a status that fails `validateStatus` (not
 * 2xx). The retry info is read the documented way, `getRetryInfo(response | error)`.
 */
import { attachRetry, createRetryPolicy, getRetryInfo } from '@jitterbug/axios';
import axios, { isAxiosError, isCancel } from 'axios';
import { streamOf } from '../body.ts';
import type { CallResult, ClientFactory, RequestBody, RuntimeRequest } from '../client.ts';

const encode = (body: RequestBody | undefined): { data?: unknown; contentType?: string } => {
  if (body === undefined) return {};
  switch (body.kind) {
    case 'text':
      return { data: body.value, contentType: 'text/plain;charset=UTF-8' };
    case 'json':
      return { data: body.value, contentType: 'application/json' };
    case 'stream':
      return { data: streamOf(body.chunks) };
  }
};

const axiosClient =
  (adapter: 'xhr' | 'fetch'): ClientFactory =>
  ({ options }) => {
    // responseType 'text' and no transforms: the body is reported as the server sent it.
    const api = axios.create({ adapter, responseType: 'text', transformResponse: [] });
    attachRetry(api, createRetryPolicy(options));
    return {
      async send(request: RuntimeRequest): Promise<CallResult> {
        const { data, contentType } = encode(request.body);
        try {
          const response = await api.request<string>({
            method: request.method,
            url: request.url,
            data,
            headers: { ...(contentType ? { 'content-type': contentType } : {}), ...request.headers },
            ...(request.signal ? { signal: request.signal } : {}),
            ...(request.jitterbug === undefined ? {} : { jitterbug: request.jitterbug }),
          });
          return {
            kind: 'response',
            status: response.status,
            body: String(response.data),
            info: getRetryInfo(response),
          };
        } catch (error) {
          if (
            isAxiosError(error) &&
            error.response &&
            error.message.startsWith('Request failed with status code')
          ) {
            return {
              kind: 'http-error',
              status: error.response.status,
              body: String(error.response.data),
              error,
              info: getRetryInfo(error),
            };
          }
          return { kind: 'error', error, info: getRetryInfo(error) };
        }
      },
      // axios rejects a signal's abort with its own CanceledError; jitterbug gives it the reason as `cause`.
      isAbort: (error, reason) => isCancel(error) && (error as { cause?: unknown }).cause === reason,
    };
  };

export const axiosXhrClient: ClientFactory = axiosClient('xhr');
export const axiosFetchClient: ClientFactory = axiosClient('fetch');
