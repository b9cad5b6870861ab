/**
 * An axios adapter that answers from memory, given as the instance's `adapter` in place of `'http'`
 * (jitterbug's `attachRetry` wraps it as it wraps a real one). It answers on the next turn of the
 * event loop (`setImmediate`, where a socket's data would come) with what axios' `http` adapter
 * gives for the same response: the chunks joined and decoded as UTF-8 (a `Buffer` for
 * `responseType: 'arraybuffer'`, a stream for `'stream'`), `AxiosHeaders` of the response headers,
 * and a rejection with an `AxiosError` when `validateStatus` refuses the status.
 */
import { Readable } from 'node:stream';
import { type AxiosAdapter, AxiosError, AxiosHeaders, type AxiosResponse } from 'axios';
import { answerer } from './answers.ts';
import { bodyChunks, headerObject, type MemoryResponse, memoryResponse, pathOf } from './memory-response.ts';

const dataOf = (response: MemoryResponse, responseType: string | undefined): unknown => {
  const chunks = bodyChunks(response);
  if (responseType === 'stream') return Readable.from(chunks);
  const bytes = Buffer.concat(chunks);
  return responseType === 'arraybuffer' ? bytes : bytes.toString('utf8');
};

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export const memoryAdapter = (): AxiosAdapter => {
  const answers = answerer();
  return (config) =>
    nextTurn().then(() => {
      const answer = memoryResponse(answers.answer(pathOf(config.url ?? '/')));
      const response: AxiosResponse = {
        data: dataOf(answer, config.responseType),
        status: answer.status,
        statusText: answer.statusText,
        headers: new AxiosHeaders(headerObject(answer)),
        config,
        request: {},
      };
      const { validateStatus } = config;
      if (!validateStatus || validateStatus(answer.status)) return response;
      throw new AxiosError(
        `Request failed with status code ${answer.status}`,
        answer.status < 500 ? AxiosError.ERR_BAD_REQUEST : AxiosError.ERR_BAD_RESPONSE,
        config,
        response.request,
        response,
      );
    });
};
