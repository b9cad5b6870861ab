/**
 * The scripted answers of the HTTP/2 scripted server: every `Step` of the HTTP/1.1 server (a
 * `destroy` step destroys the whole connection there too), and HTTP/2's own faults. Each fault is
 * written as the `Step` it extends, so an `H2Step` is also a `Step` and a scenario list written
 * for both servers type-checks against either; the HTTP/1.1 servers read a fault as that plain
 * step (a connection destroyed before headers or mid-body), its nearest HTTP/1.1 equivalent.
 */
import { constants } from 'node:http2';
import type { SeenRequest, SentResponse, Step } from './scripted-server.ts';

/** HTTP/2 error codes (RFC 9113 §7) the server sends in RST_STREAM and GOAWAY frames. */
export const H2_ERROR_CODES = {
  NO_ERROR: constants.NGHTTP2_NO_ERROR,
  PROTOCOL_ERROR: constants.NGHTTP2_PROTOCOL_ERROR,
  INTERNAL_ERROR: constants.NGHTTP2_INTERNAL_ERROR,
  REFUSED_STREAM: constants.NGHTTP2_REFUSED_STREAM,
  CANCEL: constants.NGHTTP2_CANCEL,
  ENHANCE_YOUR_CALM: constants.NGHTTP2_ENHANCE_YOUR_CALM,
} as const;

export type H2ErrorName = keyof typeof H2_ERROR_CODES;

type Answer = Extract<Step, { readonly status: number }>;

export type H2Step =
  | Step
  /**
   * GOAWAY naming every stream received so far (this one included: it will be answered), then
   * this answer; the connection closes once its streams are done. A client must open a new
   * connection for its next request.
   */
  | (Answer & { readonly goaway: 'including'; readonly goawayCode?: H2ErrorName })
  /**
   * RST_STREAM with `rst` before any response. `REFUSED_STREAM` (RFC 9113 §8.7: not processed)
   * is sent at once, without reading the request body, and the request is recorded as not
   * processed; any other code (`CANCEL`, `INTERNAL_ERROR`, …) after the body was read, as a
   * server that started on the request and then gave up: processed, for all the client knows.
   */
  | { readonly destroy: 'before-headers'; readonly rst: H2ErrorName; readonly delayMs?: number }
  /** Headers and `sentBytes` of `declaredBytes` body bytes, then RST_STREAM with `rst`. */
  | {
      readonly destroy: 'mid-body';
      readonly rst: H2ErrorName;
      readonly status?: number;
      readonly sentBytes?: number;
      readonly declaredBytes?: number;
    }
  /**
   * GOAWAY whose last stream id is below this stream's (the stream before it on the connection,
   * 0 for the first): this request and every later one on the connection are not processed. Sent
   * at once, without reading the body; the connection is closed when the earlier streams are done.
   */
  | { readonly destroy: 'before-headers'; readonly goaway: 'below'; readonly goawayCode?: H2ErrorName }
  /**
   * GOAWAY naming every stream received so far (this one included), then, after `delayMs`, the
   * connection destroyed with no answer: processed, and the client cannot know.
   */
  | {
      readonly destroy: 'before-headers';
      readonly goaway: 'including';
      readonly goawayCode?: H2ErrorName;
      readonly delayMs?: number;
    };

/** A request as the HTTP/2 server saw it. */
export interface H2SeenRequest extends SeenRequest {
  /** Which connection (HTTP/2 session) it came on, counted from 1 over the server's life. */
  readonly connection: number;
  readonly streamId: number;
  /**
   * Whether the server's application took it on: `false` only when it was refused before that
   * (RST_STREAM `REFUSED_STREAM`, a GOAWAY below its stream), which a client may retry whatever
   * the method. A stream the server never saw (one sent after a GOAWAY) is not recorded at all.
   */
  processed: boolean;
}

/** What the HTTP/2 server did with one request. */
export interface H2SentResponse extends SentResponse {
  readonly step: H2Step;
}

export type H2Script = (request: H2SeenRequest) => H2Step | Promise<H2Step>;

/** Whether the step refuses its request unprocessed (decided as soon as its stream arrives). */
export const refuses = (step: H2Step): boolean =>
  ('rst' in step && step.destroy === 'before-headers' && step.rst === 'REFUSED_STREAM') ||
  ('goaway' in step && step.goaway === 'below');
