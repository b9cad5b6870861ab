/**
 * ky 2 with `kyRetry`; a scenario's own hooks go through `.extend({ hooks })` (a spread `hooks`
 * would replace kyRetry's). A final status >= 400 rejects with ky's `HTTPError`; the retry info
 * is read the documented way, `getRetryInfo(response | error)`.
 */
import { createForcedRetries, createRetryPolicy, getRetryInfo, kyRetry } from '@jitterbug/ky';
import ky, { type Options } from 'ky';
import { fetchBody } from '../body.ts';
import type { CallResult, ClientFactory, RuntimeRequest } from '../client.ts';

const isHttpError = (error: unknown): error is Error & { response: Response } =>
  error instanceof Error && error.name === 'HTTPError' && 'response' in error;

const bodyOf = async (response: Response): Promise<string | undefined> => {
  if (response.bodyUsed) return undefined;
  return response.text().catch(() => undefined);
};

export const kyClient: ClientFactory = ({ options, kyHooks }) => {
  // A scenario's own hooks are the forced retry's (`ky.retry()`), which the adapter must be asked for.
  const base = ky.create({
    ...kyRetry(createRetryPolicy(options), kyHooks ? { forcedRetries: createForcedRetries() } : {}),
  });
  const api = kyHooks ? base.extend({ hooks: kyHooks }) : base;
  return {
    async send(request: RuntimeRequest): Promise<CallResult> {
      const encoded = fetchBody(request.body);
      const init: Options = {
        method: request.method,
        headers: {
          ...(encoded.contentType ? { 'content-type': encoded.contentType } : {}),
          ...request.headers,
        },
        ...(encoded.body === undefined ? {} : { body: encoded.body }),
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.jitterbug === undefined ? {} : { jitterbug: request.jitterbug }),
      };
      let response: Response;
      try {
        response = await api(request.url, init);
      } catch (error) {
        if (isHttpError(error)) {
          return {
            kind: 'http-error',
            status: error.response.status,
            body: await bodyOf(error.response),
            error,
            info: getRetryInfo(error),
          };
        }
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
