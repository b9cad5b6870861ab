/**
 * Dropping a response's unread body in Node, where it may be a Node stream (axios' http adapter's)
 * as well as a web stream (its fetch adapter's). Reached through `#platform`.
 */
import type { AxiosResponse } from 'axios';
import { cancelWebBody } from '../response-body.ts';

/**
 * Closes a response's unfinished body stream and its request, so a half-read connection is never
 * reused. A body already read (a string, a buffer, an ended stream) is left alone: its connection
 * may already serve another request.
 */
export const destroyBody = (response: AxiosResponse): void => {
  const data = response.data as { destroy?: () => void; readableEnded?: boolean } | null | undefined;
  if (typeof data !== 'object' || typeof data?.destroy !== 'function') {
    cancelWebBody(response);
    return;
  }
  if (data.readableEnded === true) return;
  data.destroy();
  const request = response.request as { destroy?: () => void } | undefined;
  if (typeof request?.destroy === 'function') request.destroy();
};
