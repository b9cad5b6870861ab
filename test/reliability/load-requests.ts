/**
 * The load test's requests: five kinds (GET, PUT, POST, POST with an Idempotency-Key, PUT with a
 * stream body), each tagged with its id (path and `x-request-id`). Dependency-free, so the
 * exit check's child process can use it too.
 */
import type { ConformanceRequest } from '../conformance/driver.ts';

const STREAM_CHUNKS = ['stream-a;', 'stream-b;', 'stream-c'];

export type Kind = 'GET' | 'PUT' | 'POST' | 'POST+key' | 'PUT+stream';
export const KINDS: readonly Kind[] = ['GET', 'PUT', 'POST', 'POST+key', 'PUT+stream'];

export const okBody = (id: number): string => `ok:${id}`;
export const pathOf = (id: number): string => `/load/${id}`;

export const requestFor = (id: number, kind: Kind): ConformanceRequest => {
  const headers = { 'x-request-id': String(id) };
  switch (kind) {
    case 'GET':
      return { method: 'GET', path: pathOf(id), headers };
    case 'PUT':
      return { method: 'PUT', path: pathOf(id), headers, body: { kind: 'text', value: `put:${id}` } };
    case 'POST':
      return { method: 'POST', path: pathOf(id), headers, body: { kind: 'text', value: `post:${id}` } };
    case 'POST+key':
      return {
        method: 'POST',
        path: pathOf(id),
        headers: { ...headers, 'idempotency-key': `key-${id}`, 'content-type': 'application/json' },
        body: { kind: 'json', value: { id, amount: id % 97 } },
      };
    case 'PUT+stream':
      return { method: 'PUT', path: pathOf(id), headers, body: { kind: 'stream', chunks: STREAM_CHUNKS } };
  }
};

export const expectedBody = (id: number, kind: Kind): string => {
  switch (kind) {
    case 'GET':
      return '';
    case 'PUT':
      return `put:${id}`;
    case 'POST':
      return `post:${id}`;
    case 'POST+key':
      return JSON.stringify({ id, amount: id % 97 });
    case 'PUT+stream':
      return STREAM_CHUNKS.join('');
  }
};
