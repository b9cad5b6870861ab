/**
 * Node's part of the engine, chosen by the `node` condition of the package's `#platform` import:
 * what Node's fetch (undici) shows of a kept connection it lost. Browsers and workers get `web.ts`,
 * so their bundles hold none of it.
 */
export { lostKeptConnection } from '@jitterbug/core/adapter';
