/**
 * Node's part of the adapter, chosen by the `node` condition of the package's `#platform` import:
 * axios' http adapter and its stream-mode bodies, a request stream re-sent as a Node `Readable`, and
 * what its errors say of a reused connection.
 * Browsers and workers get `web.ts` instead, so their bundles hold no `node:` import and no `Buffer`.
 */
export { destroyBody } from '../node/destroy-body.ts';
export { httpAdapter } from '../node/http-adapter.ts';
export { httpBody } from '../node/http-body.ts';
export { bufferRequestStream } from '../node/request-stream.ts';
export { lostReusedSocket } from '../node/reused-socket.ts';
