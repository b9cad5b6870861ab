/**
 * Node's part of the engine, chosen by the `node` condition of the package's `#platform` import:
 * what Node's fetch (undici) shows of a kept connection it lost, and whether its failures prove that
 * nothing was sent. Browsers and workers get `web.ts`, so their bundles hold none of it.
 */
export { lostKeptConnection } from '@jitterbug/core/adapter';

/**
 * Whether a failed fetch here can prove that nothing was sent: Node's (undici's) and Bun's put the
 * socket's code on the error (`ECONNREFUSED`), so a request is retried transparently whatever its
 * method. Another runtime that resolves the `node` condition (Deno) says nothing more than that
 * the fetch failed: no failure there shows that a request was not processed, and no copy is kept
 * for such a retry. The user agent tells them apart, read once as the module loads.
 */
export const failuresProveUnsent = /^(Node\.js|Bun)\//.test(globalThis.navigator?.userAgent ?? '');
