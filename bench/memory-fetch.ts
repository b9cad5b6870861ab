/**
 * A `fetch` that answers from memory, in place of Node's (`bench/clients/fetch.ts` wraps it, ky sends
 * through it): a `Response` with the loopback server's status and headers whose body stream yields
 * the socket reads' chunks, on the next turn of the event loop (`setImmediate`, where a socket's data
 * would come).
 */
import { answerer } from './answers.ts';
import { bodyChunks, memoryResponse, pathOf } from './memory-response.ts';

export type FetchFunction = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

const urlOf = (input: Request | URL | string): string =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

export const memoryFetch = (): FetchFunction => {
  const answers = answerer();
  return (input) => {
    const response = memoryResponse(answers.answer(pathOf(urlOf(input))));
    return new Promise((resolve) => {
      setImmediate(() => {
        const chunks = bodyChunks(response);
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(chunk);
            controller.close();
          },
        });
        resolve(
          new Response(body, {
            status: response.status,
            statusText: response.statusText,
            headers: response.headers as [string, string][],
          }),
        );
      });
    });
  };
};
