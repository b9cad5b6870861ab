/**
 * Conformance driver for `@jitterbug/fetch`: `withRetry` around Node's global fetch. Each client gets
 * its own undici 7 `Agent` (through fetch's `dispatcher` option, which Node's bundled undici takes),
 * so that `close()` closes its connections. A final status reaches the caller as a response; retry
 * info is read the documented way, `getRetryInfo(response | error)`.
 */
import { AttemptTimeoutError } from '@jitterbug/core';
import { getRetryInfo, withRetry } from '@jitterbug/fetch';
import { Agent } from 'undici7';
import {
  type ConformanceBody,
  type ConformanceClient,
  type ConformanceDriver,
  type ConformanceRequest,
  type ConformanceResult,
  type DriverOptions,
  policyOf,
  type Transport,
} from '../driver.ts';
import { resumeErrorDeclared } from './overlong.ts';
import { readOutcome } from './read-body.ts';
import { agentOptions } from './transport.ts';

const encodeBody = (
  body: ConformanceBody | undefined,
): { body?: BodyInit; headers?: Record<string, string> } => {
  if (body === undefined) return {};
  switch (body.kind) {
    case 'text':
      return { body: body.value, headers: { 'content-type': 'text/plain;charset=UTF-8' } };
    case 'json':
      return { body: JSON.stringify(body.value), headers: { 'content-type': 'application/json' } };
    case 'bytes':
      return {
        body: body.value as Uint8Array<ArrayBuffer>,
        headers: { 'content-type': 'application/octet-stream' },
      };
    case 'form':
      return { body: body.value };
    case 'stream': {
      const encoder = new TextEncoder();
      const chunks = body.chunks;
      return {
        body: new ReadableStream<Uint8Array>({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
            controller.close();
          },
        }),
      };
    }
  }
};

const create = (baseUrl: string, options: DriverOptions, transport?: Transport): ConformanceClient => {
  const agent = new Agent(agentOptions(transport));
  const fetchWithRetry = withRetry(fetch, policyOf(options));
  return {
    async send(request: ConformanceRequest): Promise<ConformanceResult> {
      const encoded = encodeBody(request.body);
      let response: Response;
      try {
        response = await fetchWithRetry(new URL(request.path, baseUrl), {
          method: request.method,
          headers: { ...encoded.headers, ...request.headers },
          ...(encoded.body === undefined ? {} : { body: encoded.body }),
          ...(request.body?.kind === 'stream' ? { duplex: 'half' } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
          dispatcher: agent,
        } as RequestInit);
      } catch (error) {
        return { outcome: { kind: 'error', error }, info: getRetryInfo(error) };
      }
      const info = getRetryInfo(response);
      return { outcome: await readOutcome(response.status, response.headers, response.body), info };
    },
    close: () => agent.close(),
  };
};

/** Node's fetch: a lost connection is `TypeError: fetch failed` with the socket error as its cause. */
export const fetchDriver: ConformanceDriver = {
  name: 'fetch (withRetry)',
  statusesReject: false,
  buffersResponses: false,
  isNetworkError: (error) => error instanceof TypeError && error.message === 'fetch failed',
  isAbort: (error, reason) => error === reason,
  isAttemptTimeout: (error) => error instanceof AttemptTimeoutError,
  overlongBodyDeclared: resumeErrorDeclared,
  transports: ['tls', 'h2'],
  // The engine reads codes down fetch's `cause` chain, and nothing else: a handshake reset is a
  // plain ECONNRESET there, a REFUSED_STREAM an ERR_HTTP2_STREAM_ERROR like any stream reset, and
  // the undici 7 under Node's fetch fails every stream alike on a GOAWAY.
  signals: { handshake: false, refusedStream: false, goawayBelow: false },
  truncatesOnCancel: true,
  // Node's fetch through an undici 7 agent: see the field.
  abortKeepsSocket: true,
  goawayFailsAnswers: true,
  // fetch's cause: Node's code for an RST code, undici 7's InformationalError for a CANCEL.
  streamResetCodes: ['ERR_HTTP2_STREAM_ERROR', 'UND_ERR_INFO'],
  create,
};
