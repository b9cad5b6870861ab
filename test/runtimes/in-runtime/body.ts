/** Turns a described request body into what fetch-based clients send. */
import type { RequestBody } from './client.ts';

/** A web stream of `chunks`, each encoded as UTF-8. */
export const streamOf = (chunks: readonly string[]): ReadableStream<Uint8Array> => {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
};

/** The body and content type for fetch's `init` (and ky's `body`). */
export const fetchBody = (
  body: RequestBody | undefined,
): { body?: BodyInit; contentType?: string; stream?: true } => {
  if (body === undefined) return {};
  switch (body.kind) {
    case 'text':
      return { body: body.value, contentType: 'text/plain;charset=UTF-8' };
    case 'json':
      return { body: JSON.stringify(body.value), contentType: 'application/json' };
    case 'stream':
      return { body: streamOf(body.chunks), stream: true };
  }
};
