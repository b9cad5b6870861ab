/**
 * Node's part of the adapter, chosen by the `node` condition of the package's `#platform` import:
 * axios' http adapter and its stream-mode bodies, and a request stream re-sent as a Node `Readable`.
 * Browsers and workers get `web.ts` instead, so their bundles hold no `node:` import and no `Buffer`.
 */
export { destroyBody } from '../node/destroy-body.ts';
export { httpAdapter } from '../node/http-adapter.ts';
export { httpBody } from '../node/http-body.ts';
export { bufferRequestStream } from '../node/request-stream.ts';
