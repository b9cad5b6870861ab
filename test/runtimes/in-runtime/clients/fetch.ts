/**
 * `withRetry` around the runtime's own global `fetch`. A final status reaches the caller as a
 * response; the retry info is read the documented way, `getRetryInfo(response | error)`.
 */
import { createRetryPolicy, type FetchInit, getRetryInfo, withRetry } from '@jitterbug/fetch';
import { fetchBody } from '../body.ts';
import type { CallResult, ClientFactory, RuntimeRequest } from '../client.ts';

export const fetchClient: ClientFactory = ({ options }) => {
  const fetchWithRetry = withRetry(fetch, createRetryPolicy(options));
  return {
    async send(request: RuntimeRequest): Promise<CallResult> {
      const encoded = fetchBody(request.body);
      let response: Response;
      try {
        response = await fetchWithRetry(request.url, {
          method: request.method,
          headers: {
            ...(encoded.contentType ? { 'content-type': encoded.contentType } : {}),
            ...request.headers,
          },
          ...(encoded.body === undefined ? {} : { body: encoded.body }),
          ...(encoded.stream ? { duplex: 'half' } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
          ...(request.jitterbug === undefined ? {} : { jitterbug: request.jitterbug }),
        } as FetchInit);
      } catch (error) {
        return { kind: 'error', error, info: getRetryInfo(error) };
      }
      const info = getRetryInfo(response);
      try {
        return { kind: 'response', status: response.status, body: await response.text(), info };
      } catch (error) {
        return { kind: 'error', error, info };
      }
    },
    isAbort: (error, reason) => error === reason,
  };
};
